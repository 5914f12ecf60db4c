// Storage failures a caller may want to tell apart. They are not AppErrors: whether a missing
// object is a 404 or a 500 (a row whose bytes vanished) is the caller's decision.

export class InvalidKeyError extends Error {
  constructor(readonly key: string) {
    super(`Invalid storage key: ${JSON.stringify(key.slice(0, 200))}`);
    this.name = 'InvalidKeyError';
  }
}

export class ObjectExistsError extends Error {
  constructor(readonly key: string) {
    super(`Storage object already exists: ${key}`);
    this.name = 'ObjectExistsError';
  }
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`Storage object not found: ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

export class InvalidRangeError extends Error {
  constructor(
    readonly key: string,
    readonly size: number,
  ) {
    super(`Byte range outside storage object ${key} of ${size} bytes`);
    this.name = 'InvalidRangeError';
  }
}

/** The store cannot be used at all (unreachable, refused credentials, missing bucket); the message says why in words. */
export class StorageUnavailableError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}
