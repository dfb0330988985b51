/** The api-keys module's front door: the public scope's authenticator (app.ts) and `portway keys`. */
export {
  ApiKeyInputError, createApiKey, createPublicKeyAuthenticator, effectiveRateLimit, listApiKeys, revokeApiKey,
  type ApiKeyKind, type ApiKeyRecord, type CreateApiKeyInput,
} from './api-keys.service.js';
