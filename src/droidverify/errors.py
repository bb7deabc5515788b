"""Every error droidverify raises on bad input derives from :class:`DroidVerifyError`.

Callers can catch one base class; each subclass names what was wrong and where. Every error class
of the package is defined here. The tree::

    DroidVerifyError
    ├── UIParseError                 a uiautomator dump could not be parsed (or is too large)
    ├── RenderError                  a screen could not be drawn (bad source, scale or highlight index)
    ├── ActionError
    │   ├── ActionParseError         free text held no usable action
    │   └── ActionValidationError    malformed action, or one that does not fit the screen
    ├── EnvError                     an environment could not carry out a request
    │   ├── UnknownAppError          open_app named an app not in the table
    │   ├── PhoneStateError          a saved simulator phone state cannot be encoded or decoded
    │   └── DeviceError              a real device (adb) failed
    │       ├── DeviceTimeoutError
    │       └── DeviceLostError      (also InfrastructureError)
    ├── TaskError                    unknown task, bad parameters
    │   ├── DuplicateTaskError       two template classes registered under one name
    │   └── TaskModuleError          a user task module / entry point cannot be loaded or has no templates
    ├── LLMError
    │   ├── ModelLoadError           (also InfrastructureError)
    │   ├── LLMTimeoutError          (also InfrastructureError)
    │   ├── LLMServerError           the server refused a request (4xx)
    │   │   └── LLMUnavailableError  connection failed / 5xx / 429 after retries (also InfrastructureError)
    │   ├── LLMOutputError
    │   └── LLMInputError
    ├── TrainingError                a training run cannot go on (bad config)
    │   ├── TrainingDataError        a training record file is damaged or invalid
    │   └── CheckpointError          a checkpoint / trained verifier is missing or incompatible
    ├── RunError                     a run directory or run spec cannot be used
    │   ├── RunConfigError           `droidverify run` options (or their combination) that cannot run
    │   ├── RunLockedError           another process holds the run directory
    │   └── BackendError             a rollout backend cannot be used (ray missing, bad --workers,
    │       │                        factories that cannot be sent to worker processes)
    │       └── WorkerLostError      workers kept dying on one item (also InfrastructureError)
    ├── RewardError                  a judge or reward cannot be computed
    │   ├── JudgeInputError
    │   └── LabelledSetError
    ├── TrainingError                a training run cannot go on
    │   ├── TrainingDataError
    │   └── CheckpointError
    └── InfrastructureError          mixin: the machinery failed, not the agent; the runner stops
                                     and leaves the episode unfinished so a rerun retries it
"""

from __future__ import annotations


class DroidVerifyError(Exception):
    """Base class of all droidverify errors."""


class InfrastructureError(DroidVerifyError):
    """The machinery failed (server down, model not loadable, device lost), not the agent.

    An agent that raises one does not get an ``agent_error`` episode: the run stops and the
    episode stays unfinished, so rerunning the command retries it.
    """


# --- ui -------------------------------------------------------------------
class UIParseError(DroidVerifyError):
    """A UI dump (uiautomator XML) could not be parsed.

    ``where`` says which node/attribute (e.g. ``"node #12 (class=android.widget.Button) bounds"``).
    """

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.where = where
        super().__init__(f"{message} (at {where})" if where else message)


class RenderError(DroidVerifyError):
    """A screen could not be drawn to a PNG (``ui.render.render_png``): not an observation or UI
    tree, a scale <= 0, or a highlight index that names no element."""


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


class UnknownAppError(EnvError):
    """``open_app`` named an app that is not in the table (``suggestions`` lists close names)."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        self.name = name
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"unknown app {name!r}{hint} (or pass a package name like 'com.example.app')")


class DeviceLostError(DeviceError, InfrastructureError):
    """The device went away (unplugged, emulator killed, adb server gone)."""


# --- tasks ------------------------------------------------------------------
class TaskError(DroidVerifyError):
    """Unknown task, bad parameters or a task that cannot run on this environment."""


class DuplicateTaskError(TaskError):
    """Two different template classes were registered under one name (``name``)."""

    def __init__(self, message: str, *, name: str | None = None) -> None:
        self.name = name
        super().__init__(message)


class TaskModuleError(TaskError):
    """A module of user task templates (``--tasks-module``, a ``droidverify.tasks`` entry point)
    cannot be imported, fails while importing, or registers no template; ``module`` names it."""

    def __init__(self, message: str, *, module: str | None = None) -> None:
        self.module = module
        super().__init__(message)


# --- llm --------------------------------------------------------------------
class LLMError(DroidVerifyError):
    """An LLM backend failed."""


class ModelLoadError(LLMError, InfrastructureError):
    """A model could not be found or loaded."""


class LLMTimeoutError(LLMError, InfrastructureError):
    """A request to a model server timed out (after retries)."""


class LLMServerError(LLMError):
    """A model server refused a request (an error status that retrying cannot fix, e.g. 400)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        self.status = status
        super().__init__(message)


class LLMUnavailableError(LLMServerError, InfrastructureError):
    """A model server could not serve: the connection failed, or 5xx/429/auth errors persisted
    after retries (``status`` None when it never answered)."""


class LLMOutputError(LLMError):
    """A model's output could not be used (e.g. the scoring targets are not single tokens)."""


class LLMInputError(LLMError):
    """A request to an LLM backend is malformed (bad messages, empty or duplicate targets, a prompt
    longer than the model's context, an unknown backend spec)."""


# --- runner -----------------------------------------------------------------
class RunError(DroidVerifyError):
    """A run directory cannot be used (e.g. it holds another agent's results) or a run spec is bad."""


class RunConfigError(RunError):
    """A ``droidverify run`` option, or a combination of options, that cannot run
    (``cli._run_config.RunConfig`` checks them all before any work starts)."""


class RunLockedError(RunError):
    """Another process is using the run directory (``path`` is its lock file)."""

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(message)


class BackendError(RunError):
    """A rollout backend cannot be used: Ray is not installed or its cluster cannot be reached, a
    bad worker count, or an agent/env factory that cannot be sent to worker processes."""


class WorkerLostError(BackendError, InfrastructureError):
    """Rollout workers died (killed, out of memory, a Ray actor lost) more often than allowed on one
    item or before finishing any; ``attempts`` says how often. The run stops; rerun to resume."""

    def __init__(self, message: str, *, attempts: int = 0) -> None:
        self.attempts = attempts
        super().__init__(message)


# --- rewards (judges) -------------------------------------------------------
class RewardError(DroidVerifyError):
    """A judge or reward cannot be computed because its input or configuration is bad.

    A judge *model* that answers nonsense is not an error: that judgement is ``undecided``.
    """


class JudgeInputError(RewardError):
    """A judge was given something it cannot judge (no goal, an unknown method, bad vote count...)."""


class LabelledSetError(RewardError):
    """A labelled trajectory set file is missing, damaged or of an unknown version."""


class PhoneStateError(EnvError):
    """A saved simulator phone state could not be encoded or decoded (damaged or foreign data)."""


# --- training -----------------------------------------------------------------
class TrainingError(DroidVerifyError):
    """A training run cannot go on: bad configuration, or a model that does not fit the recipe."""


class TrainingDataError(TrainingError):
    """A training record file is missing, damaged, or holds a record that fails validation."""


class CheckpointError(TrainingError):
    """A trainer checkpoint or a trained verifier directory is missing, damaged or incompatible."""
