# -*- Python -*-
# lit finds the configuration of a test by searching upward from the path it is given,
# and names the test relative to the directory holding that configuration. The corpus
# is configured by ../lit.cfg.py (whose test_source_root is this directory); this file
# makes a path inside the corpus (`lit test-corpus/corpus/driver`,
# `test-corpus/run-lit.sh test-corpus/corpus/driver`) find the same configuration here,
# so the tests are found and keep the names they have in a whole-corpus run.
import os

lit_config.load_config(
    config, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lit.cfg.py")
)
