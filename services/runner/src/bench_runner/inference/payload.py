"""What goes on the wire: the chat-completions URL, JSON body and headers (§4.1).

Pure functions of the endpoint, the run's inference options, the request and the call; the
client builds the body once per logical call and the headers once per attempt (only the cache
salt changes between attempts).
"""

from __future__ import annotations

from pydantic import JsonValue

from bench_common.run_config import InferenceOptions
from bench_runner.inference.types import CallContext, ChatRequest

OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
DEFAULT_REFERER = "https://bench-harness.openrouter.ai/"
DEFAULT_TITLE = "OpenRouter: Bench Harness"
CACHE_TTL_SECONDS = 7200
AUTO_ROUTER_MODELS = frozenset({"openrouter/auto", "openrouter/auto-beta"})


def completions_url(base_url: str) -> str:
    """`<base_url>/chat/completions`, with the base used as given (trailing slashes dropped).

    Nothing is appended or rewritten, so both `https://openrouter.ai/api/v1` and
    `https://inference.do-ai.run/v1` work.
    """
    return base_url.rstrip("/") + "/chat/completions"


def build_body(model: str, options: InferenceOptions, request: ChatRequest) -> dict[str, JsonValue]:
    """The JSON body of a streamed chat-completions request.

    The request's `temperature`/`max_tokens` override the run's; `extra_body` is merged last
    (shallowly) so a benchmark can set any field the endpoint understands.
    """
    body: dict[str, JsonValue] = {
        "model": model,
        "messages": list(request.messages),
        "stream": True,
        "stream_options": {"include_usage": True},
        "cache_control": {"type": "ephemeral"},
    }
    temperature = request.temperature if request.temperature is not None else options.temperature
    if temperature is not None:
        body["temperature"] = temperature
    max_tokens = request.max_tokens if request.max_tokens is not None else options.max_tokens
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if request.tools:
        body["tools"] = list(request.tools)
        if request.tool_choice is not None:
            body["tool_choice"] = request.tool_choice
    if options.reasoning_effort is not None:
        body["reasoning_effort"] = options.reasoning_effort
    provider = _provider_preferences(options)
    if provider:
        body["provider"] = provider
    plugin = _auto_router_plugin(model, options)
    if plugin:
        body["plugins"] = [plugin]
    body.update(request.extra_body)
    return body


def _provider_preferences(options: InferenceOptions) -> dict[str, JsonValue]:
    provider: dict[str, JsonValue] = {}
    # A pinned endpoint already names the provider; a sort order would contradict it.
    if options.sort is not None and options.endpoint_id is None:
        provider["sort"] = options.sort
    if options.provider_only is not None:
        provider["only"] = list(options.provider_only)
    if options.provider_ignore is not None:
        provider["ignore"] = list(options.provider_ignore)
    if options.allow_fallbacks is not None:
        provider["allow_fallbacks"] = options.allow_fallbacks
    return provider


def _auto_router_plugin(model: str, options: InferenceOptions) -> dict[str, JsonValue]:
    if model not in AUTO_ROUTER_MODELS:
        return {}
    settings: dict[str, JsonValue] = {}
    if options.cost_tier is not None:
        settings["cost_tier"] = options.cost_tier
    if options.cost_quality_tradeoff is not None:
        settings["cost_quality_tradeoff"] = options.cost_quality_tradeoff
    if options.pin_model is not None:
        settings["pin_model"] = options.pin_model
    return {"id": "auto-router", **settings} if settings else {}


def cache_salt(session_id: str, call: CallContext, attempt: int) -> str:
    """`sessionId:epoch-N[:callSalt][:attempt-K]`.

    Epochs of one sample must not share a cached answer, nor may a retry reuse the response
    that just failed, so the epoch is always part of the salt and attempts after the first
    add their number.
    """
    parts = [session_id]
    if call.epoch is not None:
        parts.append(f"epoch-{call.epoch}")
    if call.call_salt:
        parts.append(call.call_salt)
    if attempt > 1:
        parts.append(f"attempt-{attempt}")
    return ":".join(parts)


def build_headers(
    *,
    base_url: str,
    api_key: str,
    options: InferenceOptions,
    session_id: str,
    salt: str,
    referer: str = DEFAULT_REFERER,
    title: str = DEFAULT_TITLE,
) -> dict[str, str]:
    """The request headers of one attempt (the only place the API key is used)."""
    headers = {
        "Authorization": f"Bearer {api_key}",
        "Content-Type": "application/json",
        "Accept": "text/event-stream, application/json",
        "HTTP-Referer": referer,
        "X-OpenRouter-Title": title,
        "x-openrouter-cache": "true",
        "x-openrouter-cache-ttl": str(CACHE_TTL_SECONDS),
        "x-openrouter-cache-salt": salt,
        "x-session-id": session_id,
    }
    if options.endpoint_id is not None:
        headers["X-OR-Endpoint-Id"] = options.endpoint_id
    if options.cloudflare_version is not None:
        headers["Cloudflare-Workers-Version-Overrides"] = options.cloudflare_version
    if base_url.rstrip("/") == OPENROUTER_BASE_URL:
        headers["X-OpenRouter-Metadata"] = "enabled"
    return headers


def request_summary(body: dict[str, JsonValue], options: InferenceOptions) -> dict[str, JsonValue]:
    """The short `request` object of an `AttemptStarted` record."""
    messages = body.get("messages")
    return {
        "messages": len(messages) if isinstance(messages, list) else 0,
        "stream": body.get("stream"),
        "temperature": body.get("temperature"),
        "max_tokens": body.get("max_tokens"),
        "reasoning_effort": body.get("reasoning_effort"),
        "endpoint_id": options.endpoint_id,
        "timeout_ms": options.timeout_ms,
        "completion_timeout_ms": options.completion_timeout_ms,
    }
