// Query and path parsing is shared with the gateway's own routes (GET /v1/usage): it lives in packages/http.
export { parsePath, parseQuery } from '@fragrance/http';
