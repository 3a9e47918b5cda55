from lemmata.cli import main

raise SystemExit(main())
