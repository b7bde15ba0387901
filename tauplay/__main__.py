from tauplay.cli import main

raise SystemExit(main())
