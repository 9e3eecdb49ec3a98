/**
 * Typed failures of the content store, so the HTTP layer can map each to one status without
 * parsing messages: a bad CID is the caller's fault (400), an unknown one is a 404, and a
 * missing or corrupt block is the archive's own fault (500) that an operator must hear about.
 */

/** Base class: `instanceof StorageError` catches every failure this module raises on purpose. */
export class StorageError extends Error {
  override readonly name: string = 'StorageError';
}

/** The string is not a CID, or names content this store can never hold (see `parseCid`). */
export class InvalidCidError extends StorageError {
  override readonly name = 'InvalidCidError';
  /** What the caller passed, kept for logs and error messages. */
  readonly input: string;

  constructor(input: string, reason: string, options?: ErrorOptions) {
    super(`Invalid CID ${JSON.stringify(input)}: ${reason}`, options);
    this.input = input;
  }
}

/** The root block of the CID is not in the store: the archive never received that content. */
export class NotInStoreError extends StorageError {
  override readonly name = 'NotInStoreError';
  readonly cid: string;

  constructor(cid: string) {
    super(`Not in store: ${cid}`);
    this.cid = cid;
  }
}

/** The root is present but a block it links to is not: the store lost part of a file. */
export class MissingBlockError extends StorageError {
  override readonly name = 'MissingBlockError';
  /** The missing block (not necessarily the file's root). */
  readonly cid: string;

  constructor(cid: string, options?: ErrorOptions) {
    super(`Block missing from store: ${cid}`, options);
    this.cid = cid;
  }
}

/** A stored block's bytes no longer hash to its CID (disk damage or tampering). */
export class CorruptBlockError extends StorageError {
  override readonly name = 'CorruptBlockError';
  /** The block whose bytes failed verification (not necessarily the file's root). */
  readonly cid: string;

  constructor(cid: string, reason = 'bytes do not match the CID digest') {
    super(`Corrupt block ${cid}: ${reason}`);
    this.cid = cid;
  }
}

/** The CID is present but is not a UnixFS file or raw block (e.g. a directory). */
export class NotAFileError extends StorageError {
  override readonly name = 'NotAFileError';
  readonly cid: string;

  constructor(cid: string, options?: ErrorOptions) {
    super(`Not a file: ${cid}`, options);
    this.cid = cid;
  }
}

/** `cat` was asked for a range that starts past the end of the file or is not a byte count. */
export class InvalidRangeError extends StorageError {
  override readonly name = 'InvalidRangeError';
}
