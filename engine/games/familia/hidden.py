"""What a Familia view reveals beyond the hand and public plays (for `engine.infoset`): the
face cards turned and won, and the face-up draw pile's top and the cards drawn from it."""

REVEAL_KEYS = ("trick", "last_trick", "won", "discarded_faces", "draw_pile", "known_cards", "last_draws")

FREE_CARDS = ("X",)
"""A wild joker may always be played, so holding one never explains a refused play."""
