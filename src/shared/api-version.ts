/** The one API version: the Service-Version header and every event's `api_version`. */
export const API_VERSION = '2026-06-01';
