"""What a French Tarot view reveals beyond the hand and public plays (for `engine.infoset`)."""

REVEAL_KEYS = ("dog", "discard_shown_trumps", "poignees")
"""The dog once shown, trumps the taker had to put aside, and declared poignées."""

FREE_CARDS = ("EX",)
"""The excuse may always be played, so holding it never explains a refused play."""
