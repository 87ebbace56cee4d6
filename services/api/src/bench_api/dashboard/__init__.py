"""The dashboard's static files (`static/`), served by `routes/dashboard.py`."""
