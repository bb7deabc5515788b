"""Every error droidverify raises on bad input derives from :class:`DroidVerifyError`.

Callers can catch one base class; each subclass names what was wrong and where.
"""

from __future__ import annotations


class DroidVerifyError(Exception):
    """Base class of all droidverify errors."""


# --- ui -------------------------------------------------------------------
class UIParseError(DroidVerifyError):
    """A UI dump (uiautomator XML) could not be parsed.

    ``where`` says which node/attribute (e.g. ``"node #12 (class=android.widget.Button) bounds"``).
    """

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.where = where
        super().__init__(f"{message} (at {where})" if where else message)


# --- actions --------------------------------------------------------------
class ActionError(DroidVerifyError):
    """Base class for action problems."""


class ActionParseError(ActionError):
    """Free text (usually LLM output) did not contain a usable action. ``text`` is the input."""

    def __init__(self, message: str, *, text: str | None = None) -> None:
        self.text = text
        super().__init__(message)


class ActionValidationError(ActionError):
    """An action is malformed or does not fit the current screen (``field`` names the culprit)."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        self.field = field
        super().__init__(message)


# --- environments ---------------------------------------------------------
class EnvError(DroidVerifyError):
    """An environment could not carry out a request."""


class DeviceError(EnvError):
    """A real device (adb) failed."""


class DeviceTimeoutError(DeviceError):
    """An adb command did not finish in time."""


class DeviceLostError(DeviceError):
    """The device went away (unplugged, emulator killed, adb server gone)."""


# --- tasks ------------------------------------------------------------------
class TaskError(DroidVerifyError):
    """Unknown task, bad parameters or a task that cannot run on this environment."""


# --- llm --------------------------------------------------------------------
class LLMError(DroidVerifyError):
    """An LLM backend failed."""


class ModelLoadError(LLMError):
    """A model could not be found or loaded."""


class LLMTimeoutError(LLMError):
    """A request to a model server timed out (after retries)."""


class LLMServerError(LLMError):
    """A model server answered with an error status (after retries), or the connection failed."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class LLMOutputError(LLMError):
    """A model's output could not be used (e.g. the scoring targets are not single tokens)."""


class LLMInputError(LLMError):
    """A request to an LLM backend is malformed (bad messages, empty or duplicate targets, a prompt
    longer than the model's context, an unknown backend spec)."""


# --- runner -----------------------------------------------------------------
class RunError(DroidVerifyError):
    """A run directory cannot be used (e.g. it holds another agent's results) or a run spec is bad."""
