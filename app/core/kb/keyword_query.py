"""The knowledge base's keyword query: a question's search terms, any of which may match (BM25 ranks).

Both the index and the query are split by the shared segmenter (:mod:`app.core.util.segmenter`),
the same way conversation search splits them.
"""

from __future__ import annotations

from app.core.util.segmenter import pieces

# Common English words that carry no topic; dropped from queries (they stay in the index).
QUERY_STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in
    into is it its me my of on or our should so than that the their them then there these they
    this those to was we were what when where which who whom why will with would you your about
    tell explain describe""".split()
)


def query_terms(text: str) -> list[str]:
    """Distinct terms of a question, in order: CJK bigrams (or the lone character), latin words.

    Single CJK characters are only used when a run has just one character; longer runs match
    through their bigrams, which are far more specific. English stop words are dropped unless
    nothing else is left.
    """
    terms: list[str] = []
    stop_terms: list[str] = []
    for piece in pieces(text):
        if not piece.cjk and piece.text in QUERY_STOPWORDS:
            stop_terms.append(piece.text)
        else:
            terms.extend(piece.terms())
    return list(dict.fromkeys(terms or stop_terms))


def match_expression(terms: list[str]) -> str:
    """An FTS5 MATCH expression that finds chunks containing any of ``terms`` (BM25 ranks them)."""
    quoted = ['"' + term.replace('"', '""') + '"' for term in terms]
    return " OR ".join(quoted)
