"""Yaya Fugou's hidden information, for `engine.infoset`.

Nothing is revealed beyond the hand and public plays, and no rule forces a play (a pass is
always allowed), so the one refusal a guess can meet is a poorer seat's forced gift of its
strongest cards: strength is not a suit, so a refused gift bans only the stronger cards met.
"""

family = None
