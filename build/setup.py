from setuptools import setup
from mypyc.build import mypycify

setup(
    name='mypyc_output',
    ext_modules=mypycify(
        ['engine/core.py', 'engine/cards.py', 'engine/tricks.py', 'engine/chance.py', 'engine/games/holy_grail/rules.py', 'engine/games/holy_grail/cards.py', 'engine/games/holy_grail/scoring.py'],
        opt_level="3",
        debug_level="1",
        strict_dunder_typing=False,
        log_trace=False,
    ),
)
