"""The window's asyncio loop: work stepped in run_until_complete's last pass has a loop."""

from __future__ import annotations

import asyncio

import pytest

from memory_app.gui.event_loop import EventLoop


def test_a_callback_run_in_the_last_pass_sees_the_running_loop(loop: EventLoop) -> None:
    # A callback scheduled by a done-callback that runs before the loop's own stop
    # callback lands after the stop, in the pass over pending events; qasync's loop
    # ran it with no running loop (a reload resumed there failed in CI).
    seen: list[bool] = []

    def record() -> None:
        seen.append(asyncio._get_running_loop() is loop)

    for _ in range(5):
        done = loop.create_future()
        done.add_done_callback(lambda _f: loop.call_soon(record))
        loop.call_soon(done.set_result, None)
        loop.run_until_complete(done)

    assert seen == [True] * 5


def test_a_task_resumed_in_the_last_pass_can_reach_a_worker_thread(loop: EventLoop) -> None:
    results: list[int] = []

    async def uses_a_thread() -> None:
        results.append(await asyncio.get_running_loop().run_in_executor(None, lambda: 7))

    done = loop.create_future()
    done.add_done_callback(lambda _f: loop.create_task(uses_a_thread()))
    loop.call_soon(done.set_result, None)
    loop.run_until_complete(done)
    loop.run_until_complete(asyncio.sleep(0.05))

    assert results == [7]


def test_the_result_and_the_errors_of_run_until_complete_are_kept(loop: EventLoop) -> None:
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    async def fails() -> None:
        raise ValueError("broken")

    assert loop.run_until_complete(answer()) == 42
    with pytest.raises(ValueError, match="broken"):
        loop.run_until_complete(fails())
