import { AppError } from '@fragrance/http';

/**
 * 400 `invalid_cursor`: the `cursor` parameter is not one this API issued for this query (edited,
 * forged, signed with a retired key, malformed, or from another query). Its own code, so a
 * client can tell "restart paging from the first page" from a fixable parameter; the body still
 * names `cursor` in `invalid_params` like every other 400.
 */
export class InvalidCursorProblem extends AppError {
  constructor(reason: string) {
    super(400, 'invalid_cursor', 'Invalid cursor', `cursor: ${reason}`, {
      extensions: { invalid_params: [{ name: 'cursor', reason }] },
    });
  }
}
