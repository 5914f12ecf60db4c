// Reactions by name, declared once (STYLE.md, after Immich's events): a room declares the events it
// announces and their arguments (files/file-events.ts…); the composition root alone says who reacts,
// so "who reacts when a file is deleted?" is one search for 'file.removed' in services.ts.

/** Each event's name and the arguments its reactions receive. */
export type EventMap<M> = { [K in keyof M]: unknown[] };

/** A reaction may be asynchronous: the announcer waits for it before it answers. */
export type Reaction<A extends unknown[]> = (...args: A) => void | Promise<void>;

/** What a service receives: the right to announce its own events, not to react to any. */
export interface Announcer<M extends EventMap<M>> {
  emit<K extends keyof M>(name: K, ...args: M[K]): Promise<void>;
}

/** The one list of reactions, filled in services.ts; they run in the order they were added, one after another. */
export class Events<M extends EventMap<M>> implements Announcer<M> {
  readonly #reactions: { [K in keyof M]?: Reaction<M[K]>[] } = {};

  on<K extends keyof M>(name: K, reaction: Reaction<M[K]>): void {
    (this.#reactions[name] ??= []).push(reaction);
  }

  async emit<K extends keyof M>(name: K, ...args: M[K]): Promise<void> {
    for (const reaction of this.#reactions[name] ?? []) await reaction(...args);
  }
}
