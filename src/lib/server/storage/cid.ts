import { CID } from 'multiformats/cid';
import { DAG_PB_CODE, RAW_CODE, SHA2_256_CODE } from './profile.ts';
import { InvalidCidError } from './errors.ts';

const SHA2_256_LENGTH = 32;

/**
 * Parses a CID string and checks it can name something in this store: a raw or dag-pb block
 * hashed with sha2-256. Anything else (an identity CID that carries its own bytes, another
 * codec or hash) could never have been written by `add`, and could not be verified on read,
 * so it is rejected as invalid rather than looked up.
 *
 * Accepts CIDv1 in base32 (`b…`) or base58btc (`z…`) and CIDv0 (`Qm…`), which names the same
 * dag-pb block as its CIDv1 form.
 *
 * @throws {InvalidCidError}
 */
export function parseCid(input: string): CID {
  if (typeof input !== 'string') throw new InvalidCidError(String(input), 'not a string');
  let cid: CID;
  try {
    cid = CID.parse(input);
  } catch (error) {
    throw new InvalidCidError(input, 'not a CID', { cause: error });
  }
  if (cid.code !== RAW_CODE && cid.code !== DAG_PB_CODE) {
    throw new InvalidCidError(input, `codec 0x${cid.code.toString(16)} is not raw or dag-pb`);
  }
  if (cid.multihash.code !== SHA2_256_CODE || cid.multihash.size !== SHA2_256_LENGTH) {
    throw new InvalidCidError(input, 'hash is not sha2-256');
  }
  return cid;
}
