"""What the bot asks GitHub (`port.GitHubPort`) and the one PyGithub gateway that answers."""
