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
