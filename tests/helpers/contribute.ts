/**
 * A contribution posted from a signed-in page of the browser tests, through the endpoint the
 * wizard uses (the session is the page's): its document, a screenshot, and the wallet's real
 * signature of the confirmation message.
 */
import type { Wallet } from 'ethers';
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import type { AssetType } from '../../src/lib/domain/constants.ts';
import { pngImage, signUpload } from './upload.ts';
import { wallet } from './wallet.ts';

export interface Contribution {
  title: string;
  document: Buffer;
  fileName: string;
  /** Changes the screenshot, so that two contributions' proofs differ. */
  proofSeed: number;
  docType?: AssetType;
  mimeType?: string;
  /** The wallet signed in on the page (the moderators' by default). */
  signer?: Wallet;
}

/** Posts `contribution` as the wallet signed in on `page`; answers the new record's CID and id. */
export async function contribute(page: Page, { title, document, fileName, proofSeed, docType = 'csv', mimeType = 'text/csv', signer = wallet }: Contribution) {
  const proof = pngImage(96, 64, proofSeed);
  // Posted as the page would: from its own origin (Astro refuses cross-site form posts).
  const headers = { Origin: new URL(page.url()).origin };
  const { body: nonceBody } = (await (await page.request.post('/v2/ops/assets/nonce', { headers })).json()) as { body: { nonce: string } };
  const asset = {
    title,
    docType,
    description: 'Una contribución de prueba con su captura de pantalla, enviada para que la moderación la revise en su cola y decida qué hacer con ella.',
    categoryId: await firstId(page.request, '/v2/open-data/categories/getAll?limit=1'),
    docSource: 'https://www.minerd.gob.do/transparencia/matriculados',
    sourceId: await firstId(page.request, '/v2/open-data/sources/getAll?limit=1'),
    issuerId: await firstId(page.request, '/v2/open-data/departments/getAll?limit=1'),
    owner: signer.address,
  };
  const added = await page.request.post('/v2/ops/assets/add', {
    headers,
    multipart: {
      asset: JSON.stringify(asset),
      nonce: nonceBody.nonce,
      signature: await signUpload(signer, document, proof, nonceBody.nonce),
      proof: { name: 'captura.png', mimeType: 'image/png', buffer: proof },
      fileUploaded: { name: fileName, mimeType, buffer: document },
    },
  });
  expect(added.status(), await added.text()).toBe(200);
  return ((await added.json()) as { body: { assetCID: string; assetId: number } }).body;
}

/** The first id a public list answers (`{ code, body: JSON string of items }`). */
export async function firstId(request: APIRequestContext, path: string): Promise<number> {
  const answer = (await (await request.get(path)).json()) as { body: string };
  return (JSON.parse(answer.body) as Array<{ id: number }>)[0]!.id;
}
