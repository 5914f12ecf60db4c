// Counted holds on a layer's extraction, taken by the nested layers it finds.

/** Extraction goes on when every nested layer that paused it has resumed it. */
export class Holds {
  #count = 0;
  #waiters: (() => void)[] = [];

  hold(): void {
    this.#count += 1;
  }

  release(): void {
    this.#count -= 1;
    if (this.#count === 0) for (const resolve of this.#waiters.splice(0)) resolve();
  }

  async free(): Promise<void> {
    while (this.#count > 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}
