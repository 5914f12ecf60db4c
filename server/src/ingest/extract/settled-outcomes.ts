// Entries settle in whatever order the extracting threads finish them, but are handed on in
// archive order: the consumer waits for each key until it is decided or the producer has ended.

export class SettledOutcomes<V> {
  readonly #outcomes = new Map<string, V>();
  #ended = false;
  #waiters: (() => void)[] = [];

  constructor(private readonly wanted: ReadonlySet<string> | ReadonlyMap<string, unknown>) {}

  has(key: string): boolean {
    return this.#outcomes.has(key);
  }

  /** The first decision about a key is final; keys nobody asked for are ignored. */
  decide(key: string, value: V): void {
    if (!this.wanted.has(key) || this.#outcomes.has(key)) return;
    this.#outcomes.set(key, value);
    this.#wake();
  }

  /** The producer is done (or failed): waiting any longer would never end. */
  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** The key's outcome once decided; undefined when the producer ended without deciding it. */
  async next(key: string): Promise<V | undefined> {
    while (!this.#outcomes.has(key) && !this.#ended) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.#outcomes.get(key);
  }

  #wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}
