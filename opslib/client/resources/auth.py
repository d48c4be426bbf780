"""``client.auth``: SMS codes, registration, login, passwords and tokens.

Operations: ``/user/auth_code`` (send_code, verify_code), ``/user/register`` (register),
``/user/login`` (login), ``/user/update_pwd`` (change_password, reset_password),
``/token/access`` (exchange_code, refresh). No frame ever holds a password, a code or a
token: logins report who is logged in and until when.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from opslib.client._http import Safety
from opslib.client._settings import Secret
from opslib.client._tokens import Credentials, Tokens
from opslib.client.frames import schema as S
from opslib.client.frames.build import records_to_frame
from opslib.client.resources import Resource, coerce_enum
from opslib.enums import AuthModel, CodeModel, UpdateModel
from opslib.exceptions import AuthenticationError
from opslib.protocol import operations as ops

__all__ = ["Auth"]


def _secret(value: str | int | Secret, name: str) -> Secret:
    """A password or code as a :class:`Secret` (its repr masked) until it is encoded; None
    is refused by name (it was sent as the text "None")."""
    if isinstance(value, Secret):
        return value
    return Secret(_text(value, name))


def _text(value: str | int, name: str) -> str:
    """A phone, area code, password or code as sent: text, or digits given as a number."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    return str(value)


def _token_frame(tokens: Tokens) -> pd.DataFrame:
    return records_to_frame([_token_record(tokens)], S.TOKEN)


def _token_record(tokens: Tokens) -> dict[str, Any]:
    expires = round(tokens.expires_at * 1000)  # decoded moments are epoch milliseconds
    return {"openid": tokens.openid, "expires_in": tokens.expires_in, "expires_at": expires}


class Auth(Resource):
    """SMS codes, registration, login, passwords, tokens (``client.auth``)."""

    # -- SMS codes ---------------------------------------------------------------------

    def _code_call(
        self,
        area_code: str,
        phone: str,
        code_model: int | str,
        auth_model: AuthModel,
        code: str | Secret | None,
        errors: str | None,
    ) -> pd.DataFrame:
        area_code, phone = _text(area_code, "area_code"), _text(phone, "phone")
        params: dict[str, Any] = {
            "auth_model": int(auth_model),
            "code_model": coerce_enum(code_model, CodeModel, "code_model"),
            "area_code": area_code,
            "phone": phone,
        }
        if code is not None:
            params["auth_code"] = _secret(code, "code")
        key = {k: params[k] for k in ("area_code", "phone", "code_model")}
        safety = Safety.WRITE if auth_model is AuthModel.SEND else Safety.READ
        frame, _ = self._write_one(
            ops.AUTH_CODE,
            params,
            schema=S.SEND_CODE_RESULT,
            key=key,
            errors=errors,
            auth=False,
            safety=safety,
        )
        return frame

    def send_code(
        self,
        area_code: str,
        phone: str,
        *,
        code_model: int | str | CodeModel,
        errors: str | None = None,
    ) -> pd.DataFrame:
        """Send an SMS verification code (``/user/auth_code``, auth_model 1).

        The answer is the same whether or not a message went out (the platform does not
        tell whether the phone is registered). One send per phone per minute.

        Parameters
        ----------
        area_code, phone
            The phone, e.g. ``"1"``, ``"5551234567"``.
        code_model
            What the code is for: 1/"register", 2/"login", 3/"reset password".
        errors
            "raise" (default) or "collect" into the row.

        Returns
        -------
        pandas.DataFrame
            One row: area_code, phone, code_model, code_model_name, ok, error_code,
            error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.auth.send_code("1", "5559876543", code_model="register")["ok"].item()
        True
        """
        return self._code_call(area_code, phone, code_model, AuthModel.SEND, None, errors)

    def verify_code(
        self,
        area_code: str,
        phone: str,
        code: str | Secret,
        *,
        code_model: int | str | CodeModel,
        errors: str | None = None,
    ) -> pd.DataFrame:
        """Check an SMS code without using it up (``/user/auth_code``, auth_model 2).

        Parameters
        ----------
        area_code, phone
            The phone the code was sent to.
        code
            The 6-digit code.
        code_model
            What the code is for: 1/"register", 2/"login", 3/"reset password".
        errors
            "raise" (default: a wrong code raises VerificationFailed) or "collect".

        Returns
        -------
        pandas.DataFrame
            One row: area_code, phone, code_model, code_model_name, ok, error_code,
            error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> df = client.auth.verify_code("1", "5559876543", "123456", code_model=1,
        ...                              errors="collect")
        >>> df["ok"].item()
        False
        """
        return self._code_call(area_code, phone, code_model, AuthModel.VERIFY, code, errors)

    # -- accounts ----------------------------------------------------------------------

    def register(
        self,
        area_code: str,
        phone: str,
        password: str | Secret,
        code: str | Secret,
        *,
        login: bool = False,
        errors: str | None = None,
    ) -> pd.DataFrame:
        """Register a user with an SMS code of code_model 1 (``/user/register``).

        Parameters
        ----------
        area_code, phone
            The new user's phone.
        password
            At least 8 characters.
        code
            The SMS code sent by ``send_code(..., code_model="register")``.
        login
            Switch this client to the new user (exchanging the authorization code that
            registration issues); by default the client stays who it was.
        errors
            "raise" (default) or "collect".

        Returns
        -------
        pandas.DataFrame
            One row: user_id, area_code, phone, ok, error_code, error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> df = client.auth.register("1", "5559876543", "long-password", "123456")
        >>> df["ok"].item()  # doctest: +SKIP
        True
        """
        area_code, phone = _text(area_code, "area_code"), _text(phone, "phone")
        secret = _secret(password, "password")
        params = {
            "area_code": area_code,
            "phone": phone,
            "password": secret,
            "auth_code": _secret(code, "code"),
        }
        frame, answer = self._write_one(
            ops.REGISTER,
            params,
            schema=S.REGISTER_RESULT,
            key={"area_code": area_code, "phone": phone},
            errors=errors,
            auth=False,
        )
        if answer:
            frame["user_id"] = pd.array([answer.get("user_id")], dtype=S.STRING)
        if login and answer and answer.get("code"):
            tokens = self._session.tokens
            tokens.exchange(str(answer["code"]), tokens.user_id_of(answer))
            tokens.remember(Credentials(area_code, phone, secret))
        return frame

    def login(
        self,
        area_code: str | None = None,
        phone: str | None = None,
        *,
        password: str | Secret | None = None,
        code: str | Secret | None = None,
    ) -> pd.DataFrame:
        """Log in by password or SMS code (``/user/login``) and switch the client to that user.

        Parameters
        ----------
        area_code, phone
            The account; default: the one the client is logged in as.
        password
            Log in by password (login_model 1). Kept (masked) to log in again when the
            refresh token is refused.
        code
            Or log in by an SMS code of code_model 2 (login_model 2).

        Returns
        -------
        pandas.DataFrame
            One row: user_id, nick_name, gmt_last_login, network.ssid, openid, expires_at.

        Examples
        --------
        >>> client = opslib.connect()
        >>> df = client.auth.login("1", "5550000003", password="user-demo-pass")  # doctest: +SKIP
        >>> df["user_id"].item()  # doctest: +SKIP
        'u-000003'
        """
        tokens = self._session.tokens
        creds = tokens.credentials
        area_code = area_code or (creds.area_code if creds else None)
        phone = phone or (creds.phone if creds else None)
        if not area_code or not phone:
            raise ValueError("login needs area_code and phone (the client has no current account)")
        if (password is None) == (code is None):
            raise ValueError("login needs exactly one of password= or code=")
        area_code, phone = _text(area_code, "area_code"), _text(phone, "phone")
        if password is not None:
            data = tokens.login_password(area_code, phone, _secret(password, "password"))
        else:
            assert code is not None
            data = tokens.login_code(area_code, phone, _secret(code, "code"))
        current = tokens.tokens
        assert current is not None
        record = {**data, **_token_record(current)}
        return records_to_frame([record], S.LOGIN)

    # -- passwords ---------------------------------------------------------------------

    def change_password(
        self, old_password: str | Secret, new_password: str | Secret, *, errors: str | None = None
    ) -> pd.DataFrame:
        """Change the caller's password (``/user/update_pwd``, update_model 1).

        The platform revokes every token of the user; the client logs in again with the
        new password when it knows the account's phone.

        Parameters
        ----------
        old_password, new_password
            The current and the new password (8..128 characters).
        errors
            "raise" (default) or "collect".

        Returns
        -------
        pandas.DataFrame
            One row: user_id, ok, error_code, error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> df = client.auth.change_password("old-password", "new-password")  # doctest: +SKIP
        >>> df["ok"].item()  # doctest: +SKIP
        True
        """
        params = {
            "update_model": int(UpdateModel.CHANGE),
            "old_password": _secret(old_password, "old_password"),
            "new_password": _secret(new_password, "new_password"),
        }
        creds = self._session.tokens.credentials
        if creds is not None and self._session.codec.requires(ops.UPDATE_PWD, "phone"):
            params.update(area_code=creds.area_code, phone=creds.phone)  # chint requires them
        user_id = self._session.user_id
        frame = self._password_write(params, user_id, auth=True, errors=errors)
        if bool(frame["ok"].iloc[0]) and creds is not None:
            self._session.tokens.login_password(
                creds.area_code, creds.phone, _secret(new_password, "new_password")
            )
        return frame

    def reset_password(
        self,
        area_code: str,
        phone: str,
        code: str | Secret,
        new_password: str | Secret,
        *,
        errors: str | None = None,
    ) -> pd.DataFrame:
        """Reset a forgotten password with an SMS code of code_model 3 (update_model 2).

        When the phone is the client's own account, the client logs in again with the new
        password (the reset revokes every token of the user).

        Parameters
        ----------
        area_code, phone
            The account.
        code
            The SMS code sent by ``send_code(..., code_model="reset password")``.
        new_password
            The new password (8..128 characters).
        errors
            "raise" (default) or "collect".

        Returns
        -------
        pandas.DataFrame
            One row: user_id (when it is the client's own account, else NA), ok,
            error_code, error_msg, message_id.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.auth.reset_password("1", "5550000003", "123456", "new-pass")  # doctest: +SKIP
        """
        area_code, phone = _text(area_code, "area_code"), _text(phone, "phone")
        params = {
            "update_model": int(UpdateModel.RESET),
            "area_code": area_code,
            "phone": phone,
            "auth_code": _secret(code, "code"),
            "new_password": _secret(new_password, "new_password"),
        }
        creds = self._session.tokens.credentials
        own = creds is not None and (creds.area_code, creds.phone) == (
            area_code,
            phone,
        )
        frame = self._password_write(
            params, self._session.user_id if own else None, auth=False, errors=errors
        )
        if own and bool(frame["ok"].iloc[0]):
            self._session.tokens.login_password(
                area_code,
                phone,
                _secret(new_password, "new_password"),
            )
        return frame

    def _password_write(
        self, params: dict[str, Any], user_id: str | None, *, auth: bool, errors: str | None
    ) -> pd.DataFrame:
        frame, _ = self._write_one(
            ops.UPDATE_PWD,
            params,
            schema=S.PASSWORD_RESULT,
            key={"user_id": user_id},
            errors=errors,
            auth=auth,
        )
        return frame

    # -- tokens ------------------------------------------------------------------------

    def exchange_code(self, code: str | Secret, *, user_id: str | None = None) -> pd.DataFrame:
        """Exchange an authorization code for tokens (``/token/access``, authorization_code).

        The client switches to the code's user. Codes come from ``/user/login`` and
        ``/user/register`` (``client.call``); they are single use and live 10 minutes.

        Parameters
        ----------
        code
            The authorization code.
        user_id
            The user the code was issued to (the ``user_id`` of the answer that carried
            it); without it the token answer's openid stands for it, which holds on the
            reference platform but not where openid is app-scoped.

        Returns
        -------
        pandas.DataFrame
            One row: openid, expires_in (seconds), expires_at. The tokens themselves stay
            inside the client.

        Examples
        --------
        >>> client = opslib.connect()
        >>> data = client.call("login", {"login_model": 1, "area_code": "1",
        ...     "phone": "5550000003", "password": "user-demo-pass"})  # doctest: +SKIP
        >>> df = client.auth.exchange_code(data["code"], user_id=data["user_id"])  # doctest: +SKIP
        >>> df["openid"].item()  # doctest: +SKIP
        'u-000003'
        """
        return _token_frame(self._session.tokens.exchange(_secret(code, "code"), user_id))

    def refresh(self) -> pd.DataFrame:
        """Refresh the access token now (``/token/access``, refresh_token).

        The client refreshes by itself before expiry; call this to test the refresh path.

        Returns
        -------
        pandas.DataFrame
            One row: openid, expires_in (seconds), expires_at.

        Examples
        --------
        >>> client = opslib.connect()
        >>> client.auth.refresh()["expires_in"].item()
        7200
        """
        if self._session.tokens.tokens is None:
            raise AuthenticationError(401, "not logged in: nothing to refresh")
        return _token_frame(self._session.tokens.refresh())
