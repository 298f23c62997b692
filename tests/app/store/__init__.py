"""Tests of the store, one file per module of app/store."""
