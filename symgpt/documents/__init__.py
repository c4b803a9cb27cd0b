"""The documents: typed steps, blocks and layout, the sections, figures, and the Markdown, LaTeX and HTML formats."""
