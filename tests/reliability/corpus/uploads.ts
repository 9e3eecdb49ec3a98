/**
 * Hostile uploads (`POST /v2/ops/assets/add`): broken multipart, bodies cut short, fields and files
 * past their limits, files that are not what they claim, NUL bytes and broken UTF-8 in fields,
 * and every way of forging the session, the nonce or the wallet's signature. Each one is
 * refused, and none leaves a record, an import or a block behind.
 */
import { randomBytes } from 'node:crypto';
import { multipart } from '../support/multipart.ts';
import { uploadForm } from '../support/archive-client.ts';
import { cidOf } from '../../../src/lib/server/storage/index.ts';
import { get, head, raw, sendUpload } from './send.ts';
import type { CorpusContext, HostileCase } from './types.ts';

/** The three fields of a valid upload, as multipart parts. */
async function validFields(context: CorpusContext, document: Buffer) {
  const nonce = await context.nonce();
  return [
    { name: 'asset', value: JSON.stringify(context.asset()) },
    { name: 'nonce', value: nonce },
    { name: 'signature', value: await context.sign(document, context.png, nonce) },
  ];
}

const proofPart = (context: CorpusContext) => ({ name: 'proof', value: context.png, fileName: 'captura.png', type: 'image/png' });
const documentPart = (document: Buffer) => ({ name: 'fileUploaded', value: document, fileName: 'datos.csv', type: 'text/csv' });

/** A valid upload's body, built for `context`, cut at `fraction` of its length. */
async function validBody(context: CorpusContext) {
  const document = context.csv();
  const nonce = await context.nonce();
  return uploadForm(context.asset(), nonce, await context.sign(document, context.png, nonce), { document, proof: context.png });
}

/** A PNG that is valid at its head and then goes on past `bytes`. */
const bigPng = (context: CorpusContext, bytes: number) => Buffer.concat([context.png, randomBytes(bytes)]);

const long = (length: number) => 'x'.repeat(length);

export const UPLOAD_CASES: HostileCase[] = [
  // Malformed multipart.
  {
    name: 'upload: multipart/form-data without a boundary',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => sendUpload(context, address, { form: { contentType: 'multipart/form-data', body: (await validBody(context)).body } }),
  },
  {
    name: 'upload: boundary declared, another one used in the body',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => sendUpload(context, address, { form: { contentType: 'multipart/form-data; boundary=otra-frontera', body: (await validBody(context)).body } }),
  },
  {
    name: 'upload: random bytes as a multipart body',
    bullet: 'multipart',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { form: { contentType: 'multipart/form-data; boundary=x', body: randomBytes(64 * 1024) } }),
  },
  {
    name: 'upload: empty body',
    bullet: 'multipart',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { form: { contentType: 'multipart/form-data; boundary=x', body: Buffer.alloc(0) } }),
  },
  {
    name: 'upload: parts without Content-Disposition',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => {
      const form = multipart([
        { name: 'asset', value: JSON.stringify(context.asset()), rawHeaders: 'Content-Type: application/json' },
        { name: 'nonce', value: await context.nonce(), rawHeaders: 'X-Nada: 1' },
      ]);
      return sendUpload(context, address, { form });
    },
  },
  {
    name: 'upload: the files before the fields',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => {
      const document = context.csv();
      const form = multipart([proofPart(context), documentPart(document), ...(await validFields(context, document))]);
      return sendUpload(context, address, { form });
    },
  },
  {
    name: 'upload: a fourth text field',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => {
      const document = context.csv();
      const form = multipart([...(await validFields(context, document)), { name: 'admin', value: 'true' }, proofPart(context), documentPart(document)]);
      return sendUpload(context, address, { form });
    },
  },
  {
    name: 'upload: two documents',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => {
      const document = context.csv();
      const form = multipart([...(await validFields(context, document)), proofPart(context), documentPart(document), documentPart(context.csv())]);
      return sendUpload(context, address, { form });
    },
  },
  {
    name: 'upload: a file part of unknown name',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => {
      const document = context.csv();
      const form = multipart([...(await validFields(context, document)), proofPart(context), { name: 'extra', value: document, fileName: 'x.csv', type: 'text/csv' }]);
      return sendUpload(context, address, { form });
    },
  },
  {
    // Refused either for its headers or for its signature (of other bytes): never stored.
    name: 'upload: 2,000 junk header lines before Content-Disposition',
    bullet: 'multipart',
    expect: [400, 403, 413],
    send: async (context, address) => {
      const document = context.csv();
      const nonce = await context.nonce();
      const junk = Array.from({ length: 2000 }, (_, n) => `X-Relleno-${n}: ${n}`).join('\r\n');
      const form = multipart([
        { name: 'asset', value: JSON.stringify(context.asset()), rawHeaders: `${junk}\r\nContent-Disposition: form-data; name="asset"` },
        { name: 'nonce', value: nonce },
        { name: 'signature', value: await context.sign(context.csv(), context.png, nonce) },
        proofPart(context),
        documentPart(document),
      ]);
      return sendUpload(context, address, { form });
    },
  },
  {
    name: 'upload: a field name of 5,000 characters',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => {
      const document = context.csv();
      const form = multipart([{ name: long(5000), value: 'x' }, ...(await validFields(context, document)), proofPart(context), documentPart(document)]);
      return sendUpload(context, address, { form });
    },
  },
  {
    name: 'upload: no proof',
    bullet: 'multipart',
    expect: 400,
    send: async (context, address) => {
      const document = context.csv();
      return sendUpload(context, address, { form: multipart([...(await validFields(context, document)), documentPart(document)]) });
    },
  },
  {
    name: 'upload: an empty document',
    bullet: 'multipart',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { document: Buffer.alloc(0) }),
  },
  { name: 'upload: asset that is not JSON', bullet: 'multipart', expect: 400, send: (context, address) => sendUpload(context, address, { asset: '{"title": "sin cerrar' }) },
  { name: 'upload: asset that is a JSON array', bullet: 'multipart', expect: 400, send: (context, address) => sendUpload(context, address, { asset: '[1, 2, 3]' }) },
  { name: 'upload: asset with the wrong types', bullet: 'multipart', expect: 400, send: (context, address) => sendUpload(context, address, { asset: context.asset({ title: ['x'], categoryId: { $gt: 0 }, docType: 'exe' }) }) },

  // Bodies cut short.
  {
    name: 'upload: Content-Length promises more than is sent, then the client closes',
    bullet: 'truncated',
    expect: { status: 400, noAnswerOk: true },
    send: async (context, address) => {
      const form = await validBody(context);
      const start = head(context, 'POST', '/v2/ops/assets/add', { Authorization: `Bearer ${context.alice.token}`, 'Content-Type': form.contentType, 'Content-Length': String(form.body.length) });
      return raw(context, address, Buffer.concat([Buffer.from(start, 'latin1'), form.body.subarray(0, Math.floor(form.body.length / 2))]), { halfClose: true });
    },
  },
  {
    name: 'upload: chunked body without its last chunk, then the client closes',
    bullet: 'truncated',
    expect: { status: 400, noAnswerOk: true },
    send: async (context, address) => {
      const form = await validBody(context);
      const half = form.body.subarray(0, Math.floor(form.body.length / 2));
      const start = head(context, 'POST', '/v2/ops/assets/add', { Authorization: `Bearer ${context.alice.token}`, 'Content-Type': form.contentType, 'Transfer-Encoding': 'chunked' });
      return raw(context, address, Buffer.concat([Buffer.from(`${start}${half.length.toString(16)}\r\n`, 'latin1'), half, Buffer.from('\r\n')]), { halfClose: true });
    },
  },
  {
    name: 'upload: multipart cut in the middle of the document (complete HTTP body)',
    bullet: 'truncated',
    expect: 400,
    send: async (context, address) => {
      const form = await validBody(context);
      return sendUpload(context, address, { form: { contentType: form.contentType, body: form.body.subarray(0, form.body.length - 40) } });
    },
  },
  {
    name: 'upload: multipart cut in the middle of the fields',
    bullet: 'truncated',
    expect: 400,
    send: async (context, address) => {
      const form = await validBody(context);
      return sendUpload(context, address, { form: { contentType: form.contentType, body: form.body.subarray(0, 300) } });
    },
  },
  {
    name: 'upload: everything but the closing delimiter',
    bullet: 'truncated',
    expect: 400,
    send: async (context, address) => {
      const form = await validBody(context);
      return sendUpload(context, address, { form: { contentType: form.contentType, body: Buffer.concat(form.pieces.slice(0, -1)) } });
    },
  },

  // Oversized fields and files.
  { name: 'upload: asset field of 70 kB', bullet: 'oversized', expect: 413, send: (context, address) => sendUpload(context, address, { asset: context.asset({ description: long(70_000) }) }) },
  { name: 'upload: title of 301 characters', bullet: 'oversized', expect: 400, send: (context, address) => sendUpload(context, address, { asset: context.asset({ title: long(301) }) }) },
  { name: 'upload: description of 10,001 characters', bullet: 'oversized', expect: 400, send: (context, address) => sendUpload(context, address, { asset: context.asset({ description: long(10_001) }) }) },
  {
    name: 'upload: new source name of 201 characters',
    bullet: 'oversized',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { asset: context.asset({ newSource: { name: long(201), description: 'd', url: 'https://larga.example.do' } }) }),
  },
  { name: 'upload: source URL of 2,001 characters', bullet: 'oversized', expect: 400, send: (context, address) => sendUpload(context, address, { asset: context.asset({ docSource: `https://a.example.do/${long(1990)}` }) }) },
  {
    name: 'upload: document past ARCHIVE_MAX_DOCUMENT_BYTES',
    bullet: 'oversized',
    expect: 413,
    send: (context, address) => sendUpload(context, address, { document: Buffer.concat([Buffer.from('AÑO;VALOR\n', 'latin1'), Buffer.alloc(1_000_001, 0x31)]) }),
  },
  { name: 'upload: proof past ARCHIVE_MAX_PROOF_BYTES', bullet: 'oversized', expect: 413, send: (context, address) => sendUpload(context, address, { proof: bigPng(context, 200_001) }) },
  {
    name: 'upload: a nonce field of 1 MB',
    bullet: 'oversized',
    expect: 413,
    send: async (context, address) => {
      const document = context.csv();
      const [asset, , signature] = await validFields(context, document);
      return sendUpload(context, address, { form: multipart([asset!, { name: 'nonce', value: long(1_000_000) }, signature!, proofPart(context), documentPart(document)]) });
    },
  },

  // Wrong content types.
  {
    name: 'upload: sent as application/json',
    bullet: 'contentType',
    expect: [400, 415],
    send: (context, address) => sendUpload(context, address, { form: { contentType: 'application/json', body: Buffer.from(JSON.stringify({ asset: context.asset() })) } }),
  },
  {
    name: 'upload: multipart body declared as text/plain',
    bullet: 'contentType',
    expect: [400, 415],
    send: async (context, address) => sendUpload(context, address, { form: { contentType: 'text/plain', body: (await validBody(context)).body } }),
  },
  {
    name: 'upload: multipart body declared as application/x-www-form-urlencoded',
    bullet: 'contentType',
    expect: [400, 415],
    send: async (context, address) => sendUpload(context, address, { form: { contentType: 'application/x-www-form-urlencoded', body: (await validBody(context)).body } }),
  },
  { name: 'upload: docType pdf, the file a CSV', bullet: 'contentType', expect: 415, send: (context, address) => sendUpload(context, address, { asset: context.asset({ docType: 'pdf' }), documentType: 'application/pdf' }) },
  { name: 'upload: docType csv, the file a PNG', bullet: 'contentType', expect: 415, send: (context, address) => sendUpload(context, address, { document: context.png, documentType: 'text/csv' }) },
  {
    name: 'upload: docType xlsx, the file a ZIP of anything',
    bullet: 'contentType',
    expect: 415,
    send: (context, address) => sendUpload(context, address, { asset: context.asset({ docType: 'xlsx' }), document: Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), randomBytes(2000)]) }),
  },
  { name: 'upload: proof that is a CSV', bullet: 'contentType', expect: 415, send: (context, address) => sendUpload(context, address, { proof: context.csv() }) },
  {
    name: 'upload: proof that is HTML declared image/png',
    bullet: 'contentType',
    expect: 415,
    send: (context, address) => sendUpload(context, address, { proof: Buffer.from('<html><body><script>alert("xss-proof")</script></body></html>') }),
  },
  {
    name: 'upload: proof that is an SVG with a script',
    bullet: 'contentType',
    expect: 415,
    send: (context, address) => sendUpload(context, address, { proof: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'), proofName: 'captura.svg' }),
  },

  // Path traversal in file names, on uploads that are refused for another reason: nothing anywhere.
  {
    name: 'upload: traversal file names on an upload without signature',
    bullet: 'traversal',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { signature: '', documentName: '../../../../tmp/reliability-evil-refused.csv', proofName: '../../blocks/evil.png' }),
  },

  // NUL bytes.
  { name: 'upload: NUL in the title', bullet: 'nul', expect: 400, send: (context, address) => sendUpload(context, address, { asset: context.asset({ title: 'Título con un byte nulo \u0000 en medio del texto' }) }) },
  {
    name: 'upload: NUL in the description',
    bullet: 'nul',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { asset: context.asset({ description: `${'Descripción larga del documento público. '.repeat(4)}\u0000` }) }),
  },
  {
    name: 'upload: NUL in a new source name',
    bullet: 'nul',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { asset: context.asset({ newSource: { name: 'Fuente\u0000nula', description: 'd', url: 'https://nula.example.do' } }) }),
  },
  {
    name: 'upload: NUL in a new issuer name',
    bullet: 'nul',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { asset: context.asset({ newIssuer: { name: 'Emisor\u0000nulo', description: 'd', url: 'https://emisor-nulo.example.do' } }) }),
  },
  { name: 'upload: NUL in the document file name', bullet: 'nul', expect: 400, send: (context, address) => sendUpload(context, address, { documentName: 'da\u0000tos.csv' }) },
  { name: 'upload: control characters in the document file name', bullet: 'multipart', expect: 400, send: (context, address) => sendUpload(context, address, { documentName: 'da\u0007tos\u001b.csv' }) },
  {
    name: 'upload: refused with a NUL in the title, its file must not be served',
    bullet: 'nul',
    expect: 404,
    send: async (context, address) => {
      const document = context.csv();
      await sendUpload(context, address, { document, asset: context.asset({ title: 'Otro título con un byte nulo \u0000 en medio' }) });
      return get(context, address, `/ipfs/${(await cidOf(document)).cid}`);
    },
  },
  { name: 'upload: NUL in the nonce', bullet: 'nul', expect: 400, send: (context, address) => sendUpload(context, address, { nonce: `${'0'.repeat(31)}\u0000` }) },
  { name: 'upload: NUL in the signature', bullet: 'nul', expect: 400, send: (context, address) => sendUpload(context, address, { signature: `0x${'a'.repeat(129)}\u0000` }) },

  // Invalid UTF-8.
  {
    name: 'upload: invalid UTF-8 bytes in the asset field (title too short once decoded)',
    bullet: 'utf8',
    expect: 400,
    send: async (context, address) => {
      const document = context.csv();
      const [, nonce, signature] = await validFields(context, document);
      const asset = Buffer.concat([Buffer.from('{"title":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from(`","docType":"csv"}`)]);
      return sendUpload(context, address, { form: multipart([{ name: 'asset', value: asset }, nonce!, signature!, proofPart(context), documentPart(document)]) });
    },
  },
  {
    name: 'upload: invalid UTF-8 in a field name',
    bullet: 'utf8',
    expect: 400,
    send: async (context, address) => {
      const document = context.csv();
      const fields = await validFields(context, document);
      const form = multipart([...fields, proofPart(context), documentPart(document)]);
      const body = Buffer.from(form.body.toString('latin1').replace('name="nonce"', 'name="non\u00ffce"'), 'latin1');
      return sendUpload(context, address, { form: { contentType: form.contentType, body } });
    },
  },

  // Forged sessions, nonces and signatures.
  { name: 'upload: no session', bullet: 'forged', expect: 401, send: (context, address) => sendUpload(context, address, { token: null }) },
  { name: 'upload: a made-up bearer token', bullet: 'forged', expect: 401, send: (context, address) => sendUpload(context, address, { token: randomBytes(32).toString('base64url') }) },
  {
    name: "upload: the user id (base64 of account-provider) as token",
    bullet: 'forged',
    expect: 401,
    send: (context, address) => sendUpload(context, address, { token: Buffer.from(`${context.alice.wallet.address.toLowerCase()}-metamask`).toString('base64') }),
  },
  {
    name: 'upload: a made-up session cookie',
    bullet: 'forged',
    expect: 401,
    send: (context, address) => sendUpload(context, address, { token: null, headers: { Cookie: `archivo_session=${randomBytes(32).toString('hex')}` } }),
  },
  {
    name: 'upload: signed by another wallet',
    bullet: 'forged',
    expect: 403,
    send: async (context, address) => {
      const document = context.csv();
      const nonce = await context.nonce();
      return sendUpload(context, address, { document, nonce, signature: await context.sign(document, context.png, nonce, context.mallory.wallet) });
    },
  },
  {
    name: 'upload: signature of other bytes',
    bullet: 'forged',
    expect: 403,
    send: async (context, address) => {
      const nonce = await context.nonce();
      return sendUpload(context, address, { nonce, signature: await context.sign(context.csv(), context.png, nonce) });
    },
  },
  { name: "upload: owner is another wallet", bullet: 'forged', expect: 403, send: (context, address) => sendUpload(context, address, { asset: context.asset({ owner: context.mallory.wallet.address }) }) },
  { name: 'upload: a nonce already spent', bullet: 'forged', expect: 403, send: (context, address) => sendUpload(context, address, { nonce: context.spentNonce }) },
  { name: "upload: a nonce issued to another wallet", bullet: 'forged', expect: 403, send: async (context, address) => sendUpload(context, address, { nonce: await context.nonce(context.mallory) }) },
  { name: 'upload: a nonce never issued', bullet: 'forged', expect: 403, send: (context, address) => sendUpload(context, address, { nonce: randomBytes(16).toString('hex') }) },
  { name: 'upload: a malformed signature', bullet: 'forged', expect: 400, send: (context, address) => sendUpload(context, address, { signature: '0x1234' }) },
  { name: 'upload: a signature of zeros', bullet: 'forged', expect: 403, send: (context, address) => sendUpload(context, address, { signature: `0x${'0'.repeat(130)}` }) },
  {
    name: 'upload: from another site (Origin: https://malicioso.example)',
    bullet: 'forged',
    expect: 403,
    send: (context, address) => sendUpload(context, address, { headers: { Origin: 'https://malicioso.example' } }),
  },
  {
    name: 'upload: HTML in a title too short to be accepted',
    bullet: 'html',
    expect: 400,
    send: (context, address) => sendUpload(context, address, { asset: context.asset({ title: '<script>x</script>' }) }),
  },
];
