"""The fake server as a child process (`python -m bench_runner.fake_model`)."""

from __future__ import annotations

import aiohttp

from bench_runner.fake_model import FakeModelProcess


async def test_child_process_serves_and_stops() -> None:
    async with FakeModelProcess(tokens=4, delay=0.0, extra_args=("--model", "fake/m")) as server:
        assert server.base_url.startswith("http://127.0.0.1:")
        pid = server.pid
        async with aiohttp.ClientSession() as session:
            body = {
                "model": "fake/m",
                "stream": False,
                "messages": [{"role": "user", "content": "Q"}],
            }
            async with session.post(server.base_url + "/chat/completions", json=body) as response:
                answer = await response.json()
            async with session.post(
                server.base_url + "/chat/completions", json={**body, "model": "other"}
            ) as response:
                assert response.status == 404
    assert pid is not None
    assert answer["choices"][0]["message"]["content"].startswith("think")
    assert server.pid is None
