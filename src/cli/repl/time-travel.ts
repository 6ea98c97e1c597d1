// `:checkpoint`, `:restore`, `:undo`, `:checkpoints`: one step on the session's Python checkpoints, in one line.
import type { CheckpointDetails } from "../../contracts/cell-result.js";
import { describeCheckpoints } from "../../tool/time-travel-call.js";
import type { ReplKernels } from "./kernels.js";

/** A parsed time-travel command (commands.ts). */
export interface TimeTravelCommand {
  kind: "checkpoint" | "restore" | "undo" | "checkpoints";
  name?: string;
}

/** Runs the command in the REPL's session and describes the checkpoints after it (docs/checkpoints.md). */
export async function runTimeTravel(kernels: ReplKernels, command: TimeTravelCommand): Promise<string> {
  const name = command.name ?? "";
  const report = await kernels.withCheckpoints(async (book, notices): Promise<CheckpointDetails> => {
    if (command.kind === "checkpoint") {
      await book.take(name, notices);
      return book.report({ taken: name, notices });
    }
    if (command.kind === "restore") {
      await book.restore(name);
      return book.report({ restored: name, notices });
    }
    if (command.kind === "undo") return book.report({ restored: await book.undo(), notices });
    return book.report({ notices });
  });
  return describeCheckpoints(report);
}
