// Tests that need a system tool CI installs (sshd, setpriv): where it is missing they skip with the reason, except
// under EVALKIT_REQUIRE_SYSTEM_TOOLS=1 (set by .ci/run), where a test that could not run fails instead.
import { it } from "vitest";

const isRequired = process.env.EVALKIT_REQUIRE_SYSTEM_TOOLS === "1";

/**
 * Registers a failing test when `reason` says the tests named by `what` cannot run here and CI demands them,
 * and prints the reason otherwise, so a skip is never silent and never counted as a pass in CI.
 */
export function requireOrExplainSkip(what: string, reason: string | undefined): void {
  if (reason === undefined) return;
  if (isRequired) {
    it(`runs ${what} (EVALKIT_REQUIRE_SYSTEM_TOOLS=1)`, () => {
      throw new Error(`${what} cannot run here: ${reason}`);
    });
    return;
  }
  console.warn(`skipping ${what}: ${reason} (set EVALKIT_REQUIRE_SYSTEM_TOOLS=1 to fail instead)`);
}
