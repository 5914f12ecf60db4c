// Entries settle in whatever order the extracting threads finish them, but are handed on in
// archive order: the consumer waits for each key until it is decided or the producer has ended.
// An outcome is forgotten once taken, and the producer can wait for the consumer to catch up, so
// what is held between them stays bounded however many entries the archive has.

export class SettledOutcomes<V> {
  readonly #outcomes = new Map<string, V>();
  /** Keys decided so far, taken or not: a decision is final. */
  readonly #decided = new Set<string>();
  #taken = 0;
  #ended = false;
  #released = false;
  #waiters: (() => void)[] = [];

  constructor(private readonly wanted: ReadonlySet<string> | ReadonlyMap<string, unknown>) {}

  has(key: string): boolean {
    return this.#decided.has(key);
  }

  /** The first decision about a key is final; keys nobody asked for are ignored. */
  decide(key: string, value: V): void {
    if (!this.wanted.has(key) || this.#decided.has(key)) return;
    this.#decided.add(key);
    this.#outcomes.set(key, value);
    this.#wake();
  }

  /** The producer is done (or failed): waiting any longer would never end. */
  end(): void {
    this.#ended = true;
    this.#wake();
  }

  /** The consumer stopped early: a producer waiting for it must not wait any longer. */
  release(): void {
    this.#released = true;
    this.#wake();
  }

  get released(): boolean {
    return this.#released;
  }

  /** The key's outcome once decided (then forgotten); undefined when the producer ended without deciding it. */
  async next(key: string): Promise<V | undefined> {
    while (!this.#outcomes.has(key) && !this.#ended) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    const value = this.#outcomes.get(key);
    this.#outcomes.delete(key);
    this.#taken += 1;
    this.#wake();
    return value;
  }

  /** Resolves once the consumer has taken `count` keys, or has stopped taking any. */
  async taken(count: number): Promise<void> {
    while (this.#taken < count && !this.#released) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}
