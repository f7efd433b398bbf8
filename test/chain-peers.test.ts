// The TronGrid and Solana RPC test peers, over real HTTP: TronGrid's TRC-20 history (fingerprint paging,
// timestamp and confirmation filters), gettransactioninfobyid, reorganisations and failures; Solana's
// getSignaturesForAddress (before/until), getTransaction token balances, the commitment levels, forks.
// No database: the same on both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRON_USDC, TRON_USDT, startTronPeer, tronAddressFromSeed, tronAddressToHex, type TronPeer } from '../peers/tron/peer.js';
import { SOLANA_USDC_MINT, associatedTokenAddress, solanaAddressFromSeed, startSolanaPeer, type SolanaPeer } from '../peers/solana/peer.js';

const getJson = async (url: string, init?: RequestInit) => {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as any };
};
const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  getJson(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('TronGrid peer', () => {
  let peer: TronPeer;
  const merchant = tronAddressFromSeed('merchant');
  const payer = tronAddressFromSeed('payer');
  const history = (q: string) => getJson(`${peer.url}/v1/accounts/${merchant}/transactions/trc20?${q}`);

  beforeAll(async () => {
    peer = await startTronPeer();
  });
  afterAll(() => peer.close());

  it('makes valid base58check addresses', () => {
    expect(merchant).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(tronAddressToHex(merchant)).toMatch(/^41[0-9a-f]{40}$/);
    expect(tronAddressToHex(TRON_USDT)).toBe('41a614f803b6fd780986a42c78ec9c7f77e6ded13c');
    expect(tronAddressToHex(merchant.slice(0, -1) + (merchant.endsWith('a') ? 'b' : 'a'))).toBeNull();
  });

  it('pages the history with fingerprints, filters by time and confirmation', async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++)
      ids.push(peer.transfer({ contract: TRON_USDT, from: payer, to: merchant, value: String(i * 1_000_000) }).transaction_id);
    peer.transfer({ contract: TRON_USDC, from: merchant, to: payer, value: '7' });
    peer.transfer({ contract: TRON_USDT, from: payer, to: payer, value: '9' }); // not the merchant's

    const first = await history('limit=2&only_to=true');
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    expect(first.body.data.map((d: any) => d.transaction_id)).toEqual([ids[4], ids[3]]);
    expect(first.body.data[0]).toEqual({
      transaction_id: ids[4],
      token_info: { symbol: 'USDT', address: TRON_USDT, decimals: 6, name: 'Tether USD' },
      block_timestamp: expect.any(Number),
      from: payer,
      to: merchant,
      type: 'Transfer',
      value: '5000000',
    });
    expect(first.body.meta.page_size).toBe(2);
    expect(first.body.meta.fingerprint).toEqual(expect.any(String));
    const second = await getJson(first.body.meta.links.next);
    expect(second.body.data.map((d: any) => d.transaction_id)).toEqual([ids[2], ids[1]]);
    const third = await history(`limit=2&only_to=true&fingerprint=${second.body.meta.fingerprint}`);
    expect(third.body.data.map((d: any) => d.transaction_id)).toEqual([ids[0]]);
    expect(third.body.meta.fingerprint).toBeUndefined();
    expect(third.body.meta.links).toBeUndefined();

    const all = await history('order_by=block_timestamp,asc');
    expect(all.body.data.map((d: any) => d.value)).toEqual(['1000000', '2000000', '3000000', '4000000', '5000000', '7']);
    expect(all.body.data[5].token_info.symbol).toBe('USDC');
    expect((await history('only_from=true')).body.data.map((d: any) => d.value)).toEqual(['7']);
    expect((await history(`contract_address=${TRON_USDC}`)).body.data).toHaveLength(1);

    const third_ts = all.body.data[2].block_timestamp as number;
    const since = await history(`min_timestamp=${third_ts}&order_by=block_timestamp,asc&only_to=true`);
    expect(since.body.data.map((d: any) => d.transaction_id)).toEqual([ids[2], ids[3], ids[4]]);
    const until = await history(`max_timestamp=${third_ts}&only_to=true`);
    expect(until.body.data.map((d: any) => d.transaction_id)).toEqual([ids[2], ids[1], ids[0]]);

    // The first transfer is at head-6: nothing is solidified yet; 19 blocks past the third, three are.
    expect((await history('only_confirmed=true')).body.data).toEqual([]);
    expect((await history('only_unconfirmed=true')).body.data).toHaveLength(6);
    const third_block = peer.head - 4;
    peer.mine(19 - (peer.head - third_block));
    expect(peer.head - third_block).toBe(19);
    const confirmed = await history('only_confirmed=true&order_by=block_timestamp,asc');
    expect(confirmed.body.data.map((d: any) => d.transaction_id)).toEqual(ids.slice(0, 3));

    const now = await postJson(`${peer.url}/wallet/getnowblock`, {});
    expect(now.body.block_header.raw_data.number).toBe(peer.head);
    expect(now.body.blockID).toMatch(/^[0-9a-f]{64}$/);
    expect(parseInt(now.body.blockID.slice(0, 16), 16)).toBe(peer.head);
    expect(now.body.block_header.raw_data.timestamp).toBe(peer.blockTimestamp(peer.head));
    expect((await getJson(`${peer.url}/wallet/getnowblock`)).body.block_header.raw_data.number).toBe(peer.head);
  });

  it('answers transaction info like java-tron, solidified or not, and {} once dropped', async () => {
    const tx = peer.transfer({ contract: TRON_USDT, from: payer, to: merchant, value: '1234567' });
    const info = await postJson(`${peer.url}/wallet/gettransactioninfobyid`, { value: tx.transaction_id }, { 'TRON-PRO-API-KEY': 'k' });
    expect(info.body).toEqual({
      id: tx.transaction_id,
      fee: 0,
      blockNumber: tx.blockNumber,
      blockTimeStamp: peer.blockTimestamp(tx.blockNumber),
      contractResult: [''],
      contract_address: '41a614f803b6fd780986a42c78ec9c7f77e6ded13c',
      receipt: { energy_usage_total: 0, result: 'SUCCESS' },
      log: [
        {
          address: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c',
          topics: [
            'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
            tronAddressToHex(payer)!.slice(2).padStart(64, '0'),
            tronAddressToHex(merchant)!.slice(2).padStart(64, '0'),
          ],
          data: (1234567).toString(16).padStart(64, '0'),
        },
      ],
    });
    expect(peer.requests.at(-1)!.headers['tron-pro-api-key']).toBe('k');
    const solid = (id: string) => postJson(`${peer.url}/walletsolidity/gettransactioninfobyid`, { value: id });
    expect((await solid(tx.transaction_id)).body).toEqual({});
    peer.mine(19);
    expect((await solid(tx.transaction_id)).body.blockNumber).toBe(tx.blockNumber);

    expect(peer.drop(tx.transaction_id)).toBe(true);
    expect((await postJson(`${peer.url}/wallet/gettransactioninfobyid`, { value: tx.transaction_id })).body).toEqual({});
    expect((await solid(tx.transaction_id)).body).toEqual({});
    expect((await history('limit=200')).body.data.map((d: any) => d.transaction_id)).not.toContain(tx.transaction_id);
  });

  it('refuses invalid addresses, fails on demand, and is driven over HTTP', async () => {
    const bad = await getJson(`${peer.url}/v1/accounts/Tnotanaddress/transactions/trc20`);
    expect(bad.status).toBe(400);
    expect(bad.body.success).toBe(false);
    expect(bad.body.error).toEqual(expect.any(String));

    peer.failNext(2, 429);
    expect((await history('')).status).toBe(429);
    expect((await postJson(`${peer.url}/wallet/getnowblock`, {})).status).toBe(429);
    expect((await history('')).status).toBe(200);

    const before = peer.head;
    const t = await postJson(`${peer.url}/__peer/transfer`, { contract: TRON_USDT, from: payer, to: merchant, value: '42' });
    expect(t.body.blockNumber).toBe(before + 1);
    expect((await postJson(`${peer.url}/__peer/mine`, { n: 3 })).body.head).toBe(before + 4);
    expect((await postJson(`${peer.url}/__peer/drop`, { transaction_id: t.body.transaction_id })).body.dropped).toBe(true);
    await postJson(`${peer.url}/__peer/failNext`, { n: 1, status: 500 });
    expect((await history('')).status).toBe(500);
    const logged = peer.requests.at(-1)!;
    expect(logged).toMatchObject({ method: 'GET', path: `/v1/accounts/${merchant}/transactions/trc20`, query: {} });
  });
});

describe('Solana RPC peer', () => {
  let peer: SolanaPeer;
  const merchant = solanaAddressFromSeed('merchant');
  const payer = solanaAddressFromSeed('payer');
  let id = 0;
  const rpc = async (method: string, params: unknown[] = []) => {
    const { body } = await postJson(peer.url, { jsonrpc: '2.0', id: ++id, method, params });
    if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
    return body.result;
  };

  beforeAll(async () => {
    peer = await startSolanaPeer();
  });
  afterAll(() => peer.close());

  it('derives real associated token accounts', () => {
    // The vector of @solana/spl-token's getAssociatedTokenAddress test.
    expect(associatedTokenAddress('B8UwBUUnKwCyKuGMbFKWaG7exYdDk2ozZrPg72NyVbfj', '7o36UsWR1JQLpZ9PE2gn9L4SQ69CNNiWAXd4Jt7rqz9Z')).toBe(
      'DShWnroshVbeUp28oopA3Pu7oFPDBtC1DBmPECXXAQ9n',
    );
  });

  it('answers the basics, batches and JSON-RPC errors', async () => {
    expect(await rpc('getHealth')).toBe('ok');
    expect(await rpc('getVersion')).toEqual({ 'solana-core': '2.0.0', 'feature-set': 0 });
    const s = peer.slot;
    expect(s).toBe(300_000_000);
    expect(await rpc('getSlot')).toBe(s);
    expect(await rpc('getSlot', [{ commitment: 'confirmed' }])).toBe(s - 1);
    expect(await rpc('getSlot', [{ commitment: 'finalized' }])).toBe(s - 32);
    const batch = await postJson(peer.url, [
      { jsonrpc: '2.0', id: 1, method: 'getSlot' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
      { jsonrpc: '2.0', id: 3, method: 'getSignaturesForAddress', params: ['not-a-key'] },
    ]);
    expect(batch.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: s },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 3, error: { code: -32602, message: expect.any(String) } },
    ]);
  });

  it('lists signatures newest first, with before and until exclusive', async () => {
    const sigs: string[] = [];
    for (let i = 1; i <= 4; i++)
      sigs.push(peer.transfer({ mint: SOLANA_USDC_MINT, fromOwner: payer, toOwner: merchant, amount: i * 1_000_000 }).signature);
    const [account] = (await rpc('getTokenAccountsByOwner', [merchant, { mint: SOLANA_USDC_MINT }, { encoding: 'jsonParsed' }])).value;
    expect(account.pubkey).toBe(associatedTokenAddress(merchant, SOLANA_USDC_MINT));
    expect(account.account.owner).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
    expect(account.account.data.parsed.info).toEqual({
      isNative: false,
      mint: SOLANA_USDC_MINT,
      owner: merchant,
      state: 'initialized',
      tokenAmount: { amount: '10000000', decimals: 6, uiAmount: 10, uiAmountString: '10' },
    });

    const list = await rpc('getSignaturesForAddress', [account.pubkey]);
    expect(list.map((x: any) => x.signature)).toEqual([...sigs].reverse());
    expect(list[0]).toEqual({
      signature: sigs[3],
      slot: peer.slot,
      err: null,
      memo: null,
      blockTime: expect.any(Number),
      confirmationStatus: 'processed',
    });
    const between = await rpc('getSignaturesForAddress', [account.pubkey, { before: sigs[3], until: sigs[0] }]);
    expect(between.map((x: any) => x.signature)).toEqual([sigs[2], sigs[1]]);
    const limited = await rpc('getSignaturesForAddress', [account.pubkey, { before: sigs[2], limit: 1 }]);
    expect(limited.map((x: any) => x.signature)).toEqual([sigs[1]]);
    // The merely processed newest one is left out at confirmed.
    const confirmed = await rpc('getSignaturesForAddress', [account.pubkey, { commitment: 'confirmed' }]);
    expect(confirmed.map((x: any) => x.signature)).toEqual([sigs[2], sigs[1], sigs[0]]);
    expect(confirmed[0].confirmationStatus).toBe('confirmed');
  });

  it('answers getTransaction with token balances, per commitment, and forgets dropped ones', async () => {
    const tx = peer.transfer({ mint: SOLANA_USDC_MINT, fromOwner: payer, toOwner: merchant, amount: '2500000' });
    const cfg = { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 };
    expect(await rpc('getTransaction', [tx.signature, { ...cfg, commitment: 'confirmed' }])).toBeNull();
    const got = await rpc('getTransaction', [tx.signature, cfg]);
    expect(got.slot).toBe(tx.slot);
    expect(got.version).toBe(0);
    expect(got.meta.err).toBeNull();
    expect(got.transaction.signatures).toEqual([tx.signature]);
    const keys = got.transaction.message.accountKeys.map((k: any) => k.pubkey);
    const dest = associatedTokenAddress(merchant, SOLANA_USDC_MINT);
    const transfer = got.transaction.message.instructions.find((i: any) => i.parsed?.type === 'transferChecked');
    expect(transfer.parsed.info).toEqual({
      source: associatedTokenAddress(payer, SOLANA_USDC_MINT),
      destination: dest,
      mint: SOLANA_USDC_MINT,
      authority: payer,
      tokenAmount: { amount: '2500000', decimals: 6, uiAmount: 2.5, uiAmountString: '2.5' },
    });
    const amountOf = (balances: any[]) => BigInt(balances.find((b) => keys[b.accountIndex] === dest)?.uiTokenAmount.amount ?? '0');
    expect(amountOf(got.meta.postTokenBalances) - amountOf(got.meta.preTokenBalances)).toBe(2_500_000n);
    expect(amountOf(got.meta.preTokenBalances)).toBe(10_000_000n);
    const src = got.meta.postTokenBalances.find((b: any) => b.owner === payer);
    expect(keys[src.accountIndex]).toBe(associatedTokenAddress(payer, SOLANA_USDC_MINT));
    await expect(rpc('getTransaction', [tx.signature, { encoding: 'jsonParsed' }])).rejects.toMatchObject({ code: -32015 });

    const status = async () => (await rpc('getSignatureStatuses', [[tx.signature], { searchTransactionHistory: true }])).value[0];
    expect(await status()).toEqual({ slot: tx.slot, confirmations: 0, err: null, status: { Ok: null }, confirmationStatus: 'processed' });
    peer.advance(1);
    expect(await status()).toMatchObject({ confirmations: 1, confirmationStatus: 'confirmed' });
    expect((await rpc('getTransaction', [tx.signature, { ...cfg, commitment: 'confirmed' }])).slot).toBe(tx.slot);
    expect(await rpc('getTransaction', [tx.signature, { ...cfg, commitment: 'finalized' }])).toBeNull();
    peer.advance(30);
    expect(await status()).toMatchObject({ confirmations: 31, confirmationStatus: 'confirmed' });
    peer.advance(1);
    expect(await status()).toMatchObject({ confirmations: null, confirmationStatus: 'finalized' });
    expect((await rpc('getTransaction', [tx.signature, { ...cfg, commitment: 'finalized' }])).slot).toBe(tx.slot);

    expect(peer.drop(tx.signature)).toBe(true);
    expect(await status()).toBeNull();
    expect(await rpc('getTransaction', [tx.signature, cfg])).toBeNull();
    const list = await rpc('getSignaturesForAddress', [dest]);
    expect(list.map((x: any) => x.signature)).not.toContain(tx.signature);
  });

  it('creates the token account on the first receipt, fails on demand, and is driven over HTTP', async () => {
    const fresh = solanaAddressFromSeed('fresh');
    const { signature } = (
      await postJson(`${peer.url}/__peer/transfer`, { mint: SOLANA_USDC_MINT, fromOwner: payer, toOwner: fresh, amount: '5' })
    ).body;
    const got = await rpc('getTransaction', [signature, { encoding: 'jsonParsed', maxSupportedTransactionVersion: 0 }]);
    expect(got.transaction.message.instructions[0].parsed.type).toBe('createIdempotent');
    // A new account has no pre balance: Solana leaves it out.
    expect(got.meta.preTokenBalances.map((b: any) => b.owner)).toEqual([payer]);
    expect(got.meta.postTokenBalances.find((b: any) => b.owner === fresh).uiTokenAmount.amount).toBe('5');

    const slot = peer.slot;
    expect((await postJson(`${peer.url}/__peer/advance`, { n: 2 })).body.slot).toBe(slot + 2);
    const pubkey = (await postJson(`${peer.url}/__peer/createTokenAccount`, { owner: fresh, mint: solanaAddressFromSeed('mint') })).body
      .pubkey;
    expect(pubkey).toBe(associatedTokenAddress(fresh, solanaAddressFromSeed('mint')));
    const owned = await rpc('getTokenAccountsByOwner', [
      fresh,
      { programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' },
      { encoding: 'jsonParsed' },
    ]);
    expect(owned.value).toHaveLength(2);

    peer.failNext(1);
    const failed = await fetch(peer.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }) });
    expect(failed.status).toBe(503);
    expect(await rpc('getSlot')).toBe(peer.slot);
    expect(peer.requests.at(-1)!.body).toMatchObject({ method: 'getSlot' });
  });
});
