"""Top-k / top-p sampling of many chats at once with numpy, with llama.cpp's sampler chain's semantics.

A llama.cpp sampler chain copies the whole vocabulary into a candidate array for every chat and
every token (~0.5 ms per chat for a 152k vocabulary on a desktop CPU: 16 chats cost more than a GPU
step). Here the top-k chats of a step are sampled together over llama.cpp's logits matrix:

1. the ``k`` best logits of each row: the row's logits are split into groups (every
   ``n_groups``-th logit), the groups' maxima computed in one pass, and only the ``k`` groups with
   the largest maxima searched (they hold every one of the row's ``k`` best: each of those is at
   most its group's maximum);
2. top-p, min-p, temperature and the draw over those ``k``, in the order the app's llama.cpp chain
   applies them (``llamacpp_sampling.SamplerChain``): top-k, top-p (probabilities at temperature 1,
   at least one token), min-p (logit at least the best one's plus ``log(min_p)``), temperature,
   then one uniform draw per chat against the cumulative probabilities, in descending order.

Without top-k (the HTTP API's sampling) a top-p's probabilities are over the whole vocabulary: one
``exp`` pass per row gives their sum, and the nucleus is looked for among the row's 64 best logits,
then 1,024, then the row sorted whole (flat logits), as llama.cpp's top-p widens its search too.

The distribution is the chain's; the random numbers come from each chat's own seeded numpy
generator, so a seed gives the same tokens run to run (not the tokens llama.cpp's generator would).
Ties between equal logits at the k-th place may be broken differently, as llama.cpp's partial sort
leaves them unspecified too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.core.engines.requests import SamplingParams

MAX_TOP_K = 1024
"""Larger top-k values are left to llama.cpp's chain (the candidate search would not pay)."""
NUCLEUS_CANDIDATES = 64
"""Candidates searched first for a top-p without top-k; a row whose nucleus is larger is searched
again among :data:`MAX_TOP_K`, then sorted whole."""
GROUP_SIZE = 64
"""Logits per group in the search for the k best (a row of V logits has V // 64 groups)."""


@dataclass(frozen=True)
class TopKSampling:
    """The parameters the numpy path honours; :meth:`of` says whether a request can use it."""

    top_k: int
    top_p: float
    min_p: float
    temperature: float

    @classmethod
    def of(cls, params: SamplingParams) -> TopKSampling | None:
        """The request's sampling, or None where it needs llama.cpp's chain (greedy, a very large
        top-k, no top-k and no top-p, a repetition penalty). ``top_k`` 0 is the whole vocabulary.
        """
        bounded = 0 < params.top_k <= MAX_TOP_K or (params.top_k == 0 and params.top_p < 1.0)
        if params.greedy or not bounded or params.repetition_penalty != 1.0:
            return None
        return cls(params.top_k, params.top_p, params.min_p, params.temperature)


def top_candidates(matrix: Any, rows: Sequence[int] | None, k: int) -> tuple[Any, Any]:
    """The ``k`` largest logits of each row (of ``rows``, else of every row), in descending order:
    ``(token ids, logits)``, both of shape (rows, k).
    """
    import numpy as np

    n_vocab = matrix.shape[1]
    k = min(k, n_vocab)
    n_groups = n_vocab // GROUP_SIZE
    if 4 * k * GROUP_SIZE > n_vocab:  # a small vocabulary: search the rows themselves
        chosen = matrix if rows is None else matrix[np.asarray(rows)]
        ids = np.argpartition(chosen, n_vocab - k, axis=1)[:, n_vocab - k:]
        values = np.take_along_axis(chosen, ids, axis=1)
    else:
        row_index = np.arange(matrix.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
        grouped = matrix[:, : GROUP_SIZE * n_groups].reshape(matrix.shape[0], GROUP_SIZE, n_groups)
        maxima = grouped.max(axis=1)  # group g: logits g, g + n_groups, g + 2 n_groups, ...
        if rows is not None:
            maxima = maxima[row_index]
        groups = np.argpartition(maxima, n_groups - k, axis=1)[:, n_groups - k:]
        members = (groups[:, :, None] + n_groups * np.arange(GROUP_SIZE)[None, None, :]).reshape(len(row_index), -1)
        tail = np.arange(GROUP_SIZE * n_groups, n_vocab)  # the last few logits belong to no group
        candidates = np.concatenate([members, np.broadcast_to(tail, (len(row_index), len(tail)))], axis=1)
        flat = matrix.reshape(-1)
        candidate_values = flat[row_index[:, None] * n_vocab + candidates]
        best = np.argpartition(candidate_values, candidate_values.shape[1] - k, axis=1)[:, -k:]
        ids = np.take_along_axis(candidates, best, axis=1)
        values = np.take_along_axis(candidate_values, best, axis=1)
    order = np.argsort(-values, axis=1, kind="stable")
    return np.take_along_axis(ids, order, axis=1), np.take_along_axis(values, order, axis=1)


def sample_top_k(
    matrix: Any, rows: Sequence[int] | None, settings: Sequence[TopKSampling], draws: Sequence[float]
) -> list[int]:
    """One token per row (of ``rows``, else of every row of ``matrix``): row i sampled with
    ``settings[i]`` and the uniform number ``draws[i]`` in [0, 1).
    """
    width = max(setting.top_k or NUCLEUS_CANDIDATES for setting in settings)
    tokens, wider = _sample(matrix, rows, settings, draws, width)
    for larger in (MAX_TOP_K, matrix.shape[1]):  # whole-vocabulary nuclei beyond the candidates (flatter logits)
        if not wider or larger <= width:
            continue
        again, still = _sample(matrix, [i if rows is None else rows[i] for i in wider], [settings[i] for i in wider],
                               [draws[i] for i in wider], larger)
        for index, token in zip(wider, again, strict=True):
            tokens[index] = token
        wider = [wider[i] for i in still]
    return tokens


def _sample(
    matrix: Any, rows: Sequence[int] | None, settings: Sequence[TopKSampling], draws: Sequence[float], width: int
) -> tuple[list[int], list[int]]:
    """Tokens drawn from each row's ``width`` best logits, and the indices of the rows whose
    whole-vocabulary nucleus (top-k 0) reaches beyond them (their tokens are not valid).
    """
    import numpy as np

    count = len(settings)
    ids, logits = top_candidates(matrix, rows, width)
    width = ids.shape[1]
    position = np.arange(width)[None, :]
    top_k = np.array([setting.top_k for setting in settings])
    top_p = np.array([setting.top_p for setting in settings])
    min_p = np.array([setting.min_p for setting in settings])
    temperature = np.array([setting.temperature for setting in settings])[:, None]
    whole = top_k == 0
    limit = np.where(whole, width, np.minimum(top_k, width))
    in_set = position < limit[:, None]
    logits = logits.astype(np.float64)
    shifted = np.where(in_set, logits - logits[:, :1], -np.inf)
    # top-p at temperature 1: the fewest tokens whose probabilities (over the top-k, else over the
    # whole vocabulary) reach p
    probabilities = np.exp(shifted)
    normaliser = probabilities.sum(axis=1)
    if whole.any():
        picked = np.flatnonzero(whole)
        row_numbers = picked if rows is None else np.asarray(rows)[picked]
        best = logits[picked, :1].astype(np.float32)
        if rows is None and len(picked) == matrix.shape[0]:  # every row of the matrix: one new array
            full = np.subtract(matrix, best)
        else:
            full = matrix[row_numbers]  # a copy
            full -= best
        normaliser[picked] = np.exp(full, out=full).sum(axis=1)  # float32, as llama.cpp computes it
    cumulative = np.cumsum(probabilities, axis=1) / normaliser[:, None]
    reached = cumulative >= top_p[:, None]
    found = reached.any(axis=1)
    nucleus = np.where(found, reached.argmax(axis=1) + 1, limit)
    keep = np.where(top_p < 1.0, np.minimum(limit, nucleus), limit)
    wider: list[int] = np.flatnonzero(whole & ~found).tolist() if width < matrix.shape[1] else []
    # min-p: logits at least the best one's plus log(min_p); the best token always stays
    with np.errstate(divide="ignore"):
        floor = np.log(np.where(min_p > 0.0, min_p, 1.0))
    above = np.count_nonzero(in_set & (shifted >= floor[:, None]), axis=1)
    keep = np.where(min_p > 0.0, np.minimum(keep, np.maximum(above, 1)), keep)
    # temperature, then one draw against the cumulative weights of what is kept
    weights = np.where(position < keep[:, None], np.exp(shifted / temperature), 0.0)
    totals = np.cumsum(weights, axis=1)
    targets = totals[:, -1] * np.asarray(draws, dtype=np.float64)
    chosen = (totals >= targets[:, None]).argmax(axis=1)
    tokens: list[int] = ids[np.arange(count), chosen].tolist()
    return tokens, wider
