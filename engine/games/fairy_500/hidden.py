"""What a Fairy Five Hundred view reveals beyond the hand and public plays (for `engine.infoset`)."""

REVEAL_KEYS = ("open_hand",)
"""An open misère's hand, shown to everyone once play begins."""
