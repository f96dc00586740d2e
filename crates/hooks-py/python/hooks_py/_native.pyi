"""Type stubs of the native module (the engine behind ``hooks_py.Session``)."""

import asyncio
from typing import Any, Callable, List, Optional, Sequence, Tuple

class FireHandle:
    def join(self) -> None: ...
    def cancel(self) -> None: ...

class Done:
    def ok(self, text: str) -> None: ...
    def fail(self, message: str) -> None: ...

class NativeSession:
    def __init__(
        self,
        cwd: str,
        project: Optional[str],
        home: Optional[str],
        trust_project_hooks: bool,
        env: Optional[List[Tuple[str, str]]],
        env_allow: List[str],
        profile: str,
        capabilities: List[str],
        plugin_dirs: List[Tuple[str, Optional[str]]],
        require_verified: bool,
        hooks: Sequence[Tuple[str, Optional[str], List[Callable[..., Any]], Optional[float]]],
        host_handlers: Sequence[Tuple[str, Callable[..., Any]]],
        receipts: bool = ...,
        strict_containment: bool = ...,
        cloud: bool = ...,
        third_party: bool = ...,
    ) -> None: ...
    def start_fire(
        self,
        event: str,
        payload: str,
        event_loop: asyncio.AbstractEventLoop,
        future: "asyncio.Future[str]",
        stop_continuations: Optional[int] = None,
        match_target: Optional[str] = None,
    ) -> FireHandle: ...
    def fire_blocking(
        self,
        event: str,
        payload: str,
        stop_continuations: Optional[int] = None,
        match_target: Optional[str] = None,
    ) -> str: ...
    def reload(self) -> None: ...
    def list(
        self,
        event: Optional[str] = None,
        payload: Optional[str] = None,
        match_target: Optional[str] = None,
    ) -> str: ...
    def stop_continuations(self) -> int: ...
    def has_callbacks(self) -> bool: ...

def _interpreter_exiting() -> None: ...
