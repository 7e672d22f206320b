"""Reports: terminal, JUnit XML, JSON and Markdown."""
