import sys

from aqmlab.cli import main

sys.exit(main())
