"""The wire codec's recorded messages, read by both decoders (app/live/wire.py, static/js/wire.js)."""
