import { createApp, createMemoryStore, parseKeyFile } from "animal-store";

let pets;
export default {
  // The keys come from the Worker's environment: a secret holding a key file's lines, names, hashes,
  // scopes and expiries (`wrangler secret put API_KEYS < keys`; the format is docs/operating.md's).
  fetch(request, env) {
    if (pets === undefined) {
      const keys = parseKeyFile(env.API_KEYS);
      if (!keys.ok) throw new Error(`API_KEYS: ${keys.issues.join("; ")}`);
      pets = createApp({ store: createMemoryStore(), apiKeys: keys.value });
    }
    return pets.fetch(request);
  },
};
