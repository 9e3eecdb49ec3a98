/**
 * A handler's failure that another attempt cannot mend (a 404, a refused address, a file over the
 * size limit): the job fails at once with this reason instead of being retried.
 */
export class PermanentJobError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

/**
 * The attempt could not be made for a reason that is not the job's own (a batch it shared was
 * refused because of another job's file): the job goes back to the queue untried, its attempt not
 * counted, due at once.
 */
export class HandBackJobError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'HandBackJobError';
  }
}
