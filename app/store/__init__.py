"""Every query of the app's tables, one module per aggregate, raising domain errors
(app/errors.py), never HTTP ones."""
