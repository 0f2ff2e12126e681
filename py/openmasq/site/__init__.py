"""The PWA's CPython shell: builds web/ into a self-contained static site and serves it locally
(`openmasq build`, `openmasq serve`); csp.py holds the one definition of the security policies."""
