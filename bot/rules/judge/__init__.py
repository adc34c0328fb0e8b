"""The judge: one pure function from an attempt's files and facts to its verdict
(`bot.rules.judge.attempt.judge_attempt`), one module a step's concept.

- `inputs`: what the judge is given (`AttemptFiles`, `AttemptFacts`, `ChallengeFacts`);
- `attempt`: `judge_attempt`, its steps in order, and the records checked once;
- `location`: the folder's place, the market it names and the kinds that market accepts;
- `freeze`: a freeze filed alone, and a freeze stub's placeholder commit;
- `raw_log`: raw-log/ and what its URL served;
- `order`: freeze before trials, trials before filing, merge by the window's close;
- `scores`: scores.yaml against the table the cases and trials give.
"""
