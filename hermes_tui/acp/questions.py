"""The engine's questions as `session/request_permission`: the choices offered and what an answer means.

An approval offers what the TUI's dialog offers: allow once, allow for this session, always (with the rule
"always" saves, named in the option), deny. "Always" is left out when the request cannot be saved
(`allow_permanent`). A clarify question with choices offers each choice, and "Skip"; one without choices
is a one-field form (`elicitation/create`) when the client declares forms, else skipped (the model reads
"no answer" and asks in its reply). Any answer that is not one of the options (the client's
`cancelled`, an error, a client gone) denies: the engine fails closed.
"""

from __future__ import annotations

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
)

from agent.api import ApprovalAnswer, ApprovalDecision, ApprovalRequest, ClarifyRequest, sanitize_display

SKIP = "skip"


def approval_options(request: ApprovalRequest) -> list[PermissionOption]:
    rule = sanitize_display(request.suggested_rule or request.rule or request.command)
    options = [
        PermissionOption(option_id=ApprovalDecision.ONCE.value, name="Allow once", kind="allow_once"),
        PermissionOption(
            option_id=ApprovalDecision.SESSION.value, name="Allow for this session", kind="allow_always"
        ),
    ]
    if request.allow_permanent:
        options.append(
            PermissionOption(
                option_id=ApprovalDecision.ALWAYS.value, name=f"Always allow: {rule}", kind="allow_always"
            )
        )
    options.append(PermissionOption(option_id=ApprovalDecision.DENY.value, name="Deny", kind="reject_once"))
    return options


def approval_title(request: ApprovalRequest) -> str:
    who = f"{request.origin}: " if request.origin else ""
    why = "; ".join(request.reasons)
    text = f"{who}{request.subject} needs approval: {request.command}" + (f" ({why})" if why else "")
    return sanitize_display(" ".join(text.split()))


def approval_answer(response: RequestPermissionResponse | None, request: ApprovalRequest) -> ApprovalAnswer:
    chosen = _chosen(response)
    if chosen in (ApprovalDecision.ONCE, ApprovalDecision.SESSION):
        return ApprovalAnswer(ApprovalDecision(chosen))
    if chosen == ApprovalDecision.ALWAYS and request.allow_permanent:
        return ApprovalAnswer(ApprovalDecision.ALWAYS, rule=request.suggested_rule or request.rule)
    return ApprovalAnswer(ApprovalDecision.DENY)


def clarify_options(request: ClarifyRequest) -> list[PermissionOption]:
    options = [
        PermissionOption(option_id=f"choice-{i}", name=sanitize_display(choice), kind="allow_once")
        for i, choice in enumerate(request.choices)
    ]
    options.append(PermissionOption(option_id=SKIP, name="Skip", kind="reject_once"))
    return options


def clarify_answer_of(response: RequestPermissionResponse | None, request: ClarifyRequest) -> str | None:
    chosen = _chosen(response)
    if chosen is None or not chosen.startswith("choice-"):
        return None
    try:
        return request.choices[int(chosen.removeprefix("choice-"))]
    except (ValueError, IndexError):
        return None


def _chosen(response: RequestPermissionResponse | None) -> str | None:
    if response is None or not isinstance(response.outcome, AllowedOutcome):
        return None
    return response.outcome.option_id
