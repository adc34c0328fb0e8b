from bot.faces.cli import main

raise SystemExit(main())
