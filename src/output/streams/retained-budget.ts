// The one budget of a cell's retained stream text, in characters (UTF-16 code units), whoever retains it.

/**
 * Stream characters one cell keeps for its structured outputs (the tool's `details.cells[i].outputs`, a library
 * caller's `outcome.outputs`); the model's text and the artifact have their own bounds. Characters, not bytes:
 * what is kept are JS strings, whose length is free to read, and the display budget (display-budget.ts) counts
 * characters too, so one cell's outputs are measured in one unit.
 */
export const RETAINED_STREAM_CHARS = 1024 * 1024;
