"""The simplex-gradient losses as plain torch functions (one place, tested directly).

For one decision with ``m`` legal actions, ``f`` holds the value model's score of the
state each action would have produced and ``g`` the policy's probabilities. The policy
loss is ``-(Pi f)^T g`` with ``Pi = I - 11^T / m`` the projection onto the tangent space
of the simplex: its gradient in ``g`` is ``-Pi f``, which sums to zero, so a gradient
step in ``g`` stays on the plane ``sum g = 1``. Everything is batched over decisions and
masked to the legal actions (illegal entries are ignored, not zeroed into the mean).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "project_tangent",
    "simplex_projection",
    "masked_softmax",
    "policy_loss",
    "entropy",
    "kl_divergence",
]


def project_tangent(f: Any, mask: Any) -> Any:
    """``Pi f`` per row over the legal entries: ``f`` minus its mean over the legal
    actions (0 at illegal ones)."""
    maskf = mask.to(f.dtype)
    mean = (f * maskf).sum(-1, keepdim=True) / maskf.sum(-1, keepdim=True)
    return (f - mean) * maskf


def simplex_projection(y: Any, mask: Any) -> Any:
    """Euclidean projection of each row of ``y`` onto the probability simplex of its
    legal actions (Duchi et al. 2008: sort, find the threshold, clip); differentiable
    almost everywhere, so it parametrises a policy directly."""
    import torch

    big = torch.finfo(y.dtype).max / 4
    z = torch.where(mask, y, torch.full_like(y, -big))
    s, _ = torch.sort(z, dim=-1, descending=True)
    k = torch.arange(1, y.shape[-1] + 1, device=y.device, dtype=y.dtype)
    legal = mask.sum(-1, keepdim=True)
    cumsum = torch.cumsum(torch.where(s > -big, s, torch.zeros_like(s)), dim=-1)
    ok = (s - (cumsum - 1) / k > 0) & (k <= legal)
    rho = ok.to(y.dtype).sum(-1, keepdim=True).clamp(min=1)
    theta = (torch.gather(cumsum, -1, rho.long() - 1) - 1) / rho
    return torch.where(mask, (y - theta).clamp(min=0), torch.zeros_like(y))


def masked_softmax(logits: Any, mask: Any) -> Any:
    """Softmax over the legal actions (0 elsewhere)."""
    import torch

    z = logits.masked_fill(~mask, float("-inf"))
    return torch.softmax(z, dim=-1)


def policy_loss(f: Any, g: Any, mask: Any, *, projected: bool = True) -> Any:
    """Mean over the batch of ``-(Pi f)^T g`` (or ``-f^T g`` when not ``projected``);
    ``f`` is held fixed (detached)."""
    f = f.detach()
    target = project_tangent(f, mask) if projected else f * mask.to(f.dtype)
    return -(target * g).sum(-1).mean()


def entropy(g: Any, mask: Any) -> Any:
    """Per-row entropy of ``g`` over the legal actions (0 log 0 = 0)."""
    import torch

    logs = torch.log(g.clamp(min=1e-12))
    return -(torch.where(mask, g * logs, torch.zeros_like(g))).sum(-1)


def kl_divergence(g: Any, magnet: Any, mask: Any) -> Any:
    """Per-row ``KL(g || magnet)`` over the legal actions (the MMD regulariser)."""
    import torch

    logs = torch.log(g.clamp(min=1e-12)) - torch.log(magnet.clamp(min=1e-12))
    return (torch.where(mask, g * logs, torch.zeros_like(g))).sum(-1)
