"""Web plumbing every feature stands on: access marks, security headers, the page cache and
compression, error pages, form fields, the home page and the installable app (PWA)."""
