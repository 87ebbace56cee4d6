"""The fixed texts of a TAU airline conversation, as τ² words them.

The agent's system prompt is τ²'s `LLMAgent` prompt around the airline policy; the simulated
customer's is τ²'s `simulation_guidelines.md` (MIT, Sierra Research; the 1,449-byte version
the τ²-Bench-Verified release runs) followed by the task scenario in `<scenario>`.
"""

from __future__ import annotations

FIRST_AGENT_MESSAGE = "Hi! How can I help you today?"

STOP = "###STOP###"
TRANSFER = "###TRANSFER###"
OUT_OF_SCOPE = "###OUT-OF-SCOPE###"
CUSTOMER_STOP_TOKENS = (STOP, TRANSFER, OUT_OF_SCOPE)

AGENT_INSTRUCTION = """\
You are a customer service agent that helps the user according to the <policy> provided below.
In each turn you can either:
- Send a message to the user.
- Make a tool call.
You cannot do both at the same time.

Try to be helpful and always follow the policy. Always make sure you generate valid JSON only."""

SIMULATION_GUIDELINES = """\
# User Simulation Guidelines
You are playing the role of a customer contacting a customer service representative. 
Your goal is to simulate realistic customer interactions while following specific scenario \
instructions.

## Core Principles
- Generate one message at a time, maintaining natural conversation flow.
- Strictly follow the scenario instructions you have received.
- Never make up or hallucinate information not provided in the scenario instructions. \
Information that is not provided in the scenario instructions should be considered unknown or \
unavailable.
- Avoid repeating the exact instructions verbatim. Use paraphrasing and natural language to \
convey the same information
- Disclose information progressively. Wait for the agent to ask for specific information \
before providing it.

## Task Completion
- The goal is to continue the conversation until the task is complete.
- If the instruction goal is satisified, generate the '###STOP###' token to end the \
conversation.
- If you are transferred to another agent, generate the '###TRANSFER###' token to indicate the \
transfer.
- If you find yourself in a situation in which the scenario does not provide enough \
information for you to continue the conversation, generate the '###OUT-OF-SCOPE###' token to \
end the conversation.
Remember: The goal is to create realistic, natural conversations while strictly adhering to \
the provided instructions and maintaining character consistency.
"""  # noqa: W291 - the trailing space after "representative." is in the upstream file


def agent_system_prompt(policy: str) -> str:
    """τ²'s agent system prompt: the instructions, then the whole policy."""
    return f"<instructions>\n{AGENT_INSTRUCTION}\n</instructions>\n<policy>\n{policy}\n</policy>"


def customer_system_prompt(scenario: str) -> str:
    """τ²'s user-simulator system prompt: the guidelines, then the rendered scenario."""
    return f"{SIMULATION_GUIDELINES}\n\n<scenario>\n{scenario}\n</scenario>"


def customer_stop_token(text: str) -> str | None:
    """The conversation-ending token in a customer message, if any (τ² checks containment)."""
    return next((token for token in CUSTOMER_STOP_TOKENS if token in text), None)
