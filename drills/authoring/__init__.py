"""Tools for authors: checks that a chapter, its code regions and its figures agree."""
