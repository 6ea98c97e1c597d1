// The abort signal a kernel's cells take turns on: one AbortController per kernel, replaced only once it aborted.

/**
 * A new AbortController per warm cell costs more than the rest of the session layer's work for it (an AbortSignal
 * is an EventTarget, and the GC pays for each: ~7% of a warm `1+1`'s host time went to collecting them). A signal
 * that never aborted can serve the next cell, because a kernel detaches its listener when the cell ends (the kernel
 * contract: the signal is the cell's only while `execute` runs). One held while another cell wants one (cells of
 * one kernel overlap only in the queue) makes that cell a fresh controller of its own.
 */
export class CellAbortSlot {
  private controller = new AbortController();
  private isHeld = false;

  /** The controller for a cell about to run; `release` it when the cell's `execute` has settled. */
  take(): AbortController {
    if (this.isHeld) return new AbortController();
    if (this.controller.signal.aborted) this.controller = new AbortController();
    this.isHeld = true;
    return this.controller;
  }

  /** Gives the controller back (a no-op for one this slot did not hand out). */
  release(controller: AbortController): void {
    if (controller === this.controller) this.isHeld = false;
  }
}
