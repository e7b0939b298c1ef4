from nashzoo.cli import main

raise SystemExit(main())
