// Gates tests that need a working bubblewrap: they skip with the reason where none can be had, and fail in CI.
import { probeSandbox } from "../../src/runtime/sandbox-probe.js";

/**
 * CI installs bubblewrap and sets EVALKIT_REQUIRE_SANDBOX=1, so there a sandbox that cannot be had fails the
 * boundary tests (with SANDBOX_UNAVAILABLE and its reason) instead of skipping them.
 */
const isRequired = process.env.EVALKIT_REQUIRE_SANDBOX === "1";

const probe = await probeSandbox();

/** Why sandbox tests must skip here, or "" when they run. Printed once, so a skip is never silent. */
export const sandboxSkipReason: string = (() => {
  if (probe.ok || isRequired) return "";
  const reason = `(skipped: bwrap cannot run here: ${probe.reason}; set EVALKIT_REQUIRE_SANDBOX=1 to fail instead)`;
  console.warn(`skipping sandbox tests ${reason}`);
  return reason;
})();

/** True when a test that needs an outside resource (an index, a user) must fail rather than skip. */
export const isSandboxRequired = isRequired;
