/**
 * @module
 * The PostgreSQL store's export and import.
 *
 * - Export reads the counter row once, then pages through the pets up to it: every transaction
 *   that took an id up to it has committed (the counter row's lock orders commits by id), so the
 *   pages hold every pet up to that id and none above, a consistent snapshot without a
 *   transaction held open for the whole export (which would hold back vacuum on a busy database).
 * - Import is one transaction: the counter row locked first (creates of running servers wait until
 *   it commits), the target checked, the pets written in statements of `BATCH` rows, the counter
 *   set to the last id. Killed or cut off half way, PostgreSQL rolls it all back.
 */
import type { ImportOptions, ImportSummary, MovedPet, PetStatus } from "../../src/mod.ts";
import { ImportRefusedError, withId } from "../../src/mod.ts";
import { importSummary, refuseUnlessAbove, refuseUnlessEmpty } from "../../src/_internal/stores.ts";
import { describeError, isDataFailure } from "./_failures.ts";
import type { Row, SqlClient, SqlQuery } from "./sql-client.ts";

/** Rows per export page and per import statement. */
const BATCH = 5000;

/** How an imported key's client is written when it is a JSON-file store's MAC, not a digest. */
export const MAC_PREFIX = "mac:";

/** Every pet up to the counter's value when the export began, in id order, with keys younger than 24 hours. */
export async function* exportPets(sql: SqlClient): AsyncIterable<MovedPet> {
  const end = Number((await sql`select last_pet_id from animal_store`)[0]?.["last_pet_id"] ?? 0);
  for (let after = 0; after < end;) {
    const rows = await sql`
      select p.id, p.name, p.category_id, p.status, k.client, k.key, (extract(epoch from k.created_at) * 1000)::bigint as at
      from pets p left join pet_idempotency_keys k on k.pet_id = p.id and k.created_at > now() - interval '24 hours'
      where p.id > ${after} and p.id <= ${end} order by p.id limit ${BATCH}`;
    for (const row of rows) yield movedPet(row);
    if (rows.length < BATCH) return;
    after = Number(rows[rows.length - 1]!["id"]);
  }
}

function movedPet(row: Row): MovedPet {
  const status = row["status"];
  const fields = { name: String(row["name"]), categoryId: Number(row["category_id"]) };
  const pet = withId(Number(row["id"]), status === null || status === undefined ? fields : { ...fields, status: status as PetStatus });
  const client = row["client"];
  if (typeof client !== "string") return { pet };
  const [key, at] = [String(row["key"]), Number(row["at"])];
  // An imported file's MAC key goes on as it came, with the secrets it may be under (`clientMacSecrets`).
  return { pet, key: client.startsWith(MAC_PREFIX) ? { clientMac: client.slice(MAC_PREFIX.length), key, at } : { client, key, at } };
}

/** Stores `pets` under their ids in one transaction, and sets the counter to the last. */
export function importPets(sql: SqlClient, pets: AsyncIterable<MovedPet>, options: ImportOptions): Promise<ImportSummary> {
  return Promise.resolve(sql.begin(async (tx) => {
    const last = Number((await tx`select last_pet_id from animal_store for update`)[0]?.["last_pet_id"] ?? 0);
    refuseUnlessEmpty(Number((await tx`select count(*) as count from pets`)[0]?.["count"] ?? 0), options.append === true);
    const tally = { count: 0, lastId: options.append === true ? last : 0, withKey: 0 };
    let keys = 0;
    let macKeys = 0;
    let batch: MovedPet[] = [];
    const write = async () => {
      const inserted = await insertBatch(tx, batch, tally.count - batch.length, options.clientMacSecrets !== undefined);
      keys += inserted.digests;
      macKeys += inserted.macs;
      batch = [];
    };
    for await (const moved of pets) {
      refuseUnlessAbove(moved.pet.id, tally.lastId, tally.count);
      tally.count++;
      tally.lastId = moved.pet.id;
      if (moved.key !== undefined) tally.withKey++;
      batch.push(moved);
      if (batch.length === BATCH) await write();
    }
    if (batch.length > 0) await write();
    await tx`update animal_store set last_pet_id = greatest(last_pet_id, ${tally.lastId})`;
    const secrets = options.clientMacSecrets?.() ?? [];
    if (secrets.length > 0 && macKeys > 0) {
      for (const secret of secrets) {
        await tx`insert into animal_store_client_secrets (secret, until) values (${secret}, now() + interval '24 hours')
          on conflict (secret) do update set until = greatest(animal_store_client_secrets.until, excluded.until)`;
      }
      keys += macKeys;
    }
    return importSummary({ ...tally, lastId: tally.count === 0 ? 0 : tally.lastId }, keys);
  }));
}

/**
 * Inserts one statement's pets and their keys: a digest as it is, a file's MAC (when its secret
 * comes along, `withMacs`) as client `mac:<clientMac>`; resolves with how many of each.
 */
async function insertBatch(tx: SqlQuery, batch: readonly MovedPet[], position: number, withMacs: boolean): Promise<{ digests: number; macs: number }> {
  const pets = JSON.stringify(batch.map(({ pet }) => ({ id: pet.id, name: pet.name, category_id: pet.categoryId, status: pet.status ?? null })));
  const keyRows = batch.flatMap(({ pet, key }) => {
    const client = key?.client ?? (withMacs && key?.clientMac !== undefined ? `${MAC_PREFIX}${key.clientMac}` : undefined);
    return client === undefined ? [] : [{ client, key: key!.key, pet_id: pet.id, at: key!.at }];
  });
  const keys = JSON.stringify(keyRows);
  try {
    await tx`insert into pets (id, name, category_id, status)
      select id, name, category_id, status from json_to_recordset(${pets}::text::json) as p(id bigint, name text, category_id bigint, status text)`;
    if (keyRows.length === 0) return { digests: 0, macs: 0 };
    const rows = await tx`insert into pet_idempotency_keys (client, key, pet_id, created_at)
      select client, key, pet_id, to_timestamp(at / 1000.0) from json_to_recordset(${keys}::text::json) as k(client text, key text, pet_id bigint, at bigint)
      on conflict do nothing returning client`;
    const macs = rows.filter((row) => String(row["client"]).startsWith(MAC_PREFIX)).length;
    return { digests: rows.length - macs, macs };
  } catch (error) {
    if (!isDataFailure(error)) throw error;
    const ids = `${batch[0]!.pet.id} to ${batch[batch.length - 1]!.pet.id}`;
    throw new ImportRefusedError(`a pet with an id from ${ids} cannot be stored in PostgreSQL (${describeError(error)})`, position);
  }
}
