"""Tests of the Search Arena app."""
