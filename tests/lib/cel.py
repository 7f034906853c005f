# cel.py - a small evaluator for the CEL subset the admission policy uses, to test its decisions offline.
# Covers: literals, identifiers, field select, index, has(), .all(), .size(), .startsWith(), in,
# == != < <= > >=, ! && || (with CEL's error-absorbing semantics), ?:, list and map literals.
# Anything outside the subset is a CelError, never a silent pass.


class CelError(Exception):
	pass


_ABSENT = object()


def _tokens(src):
	i, n = 0, len(src)
	two = ("&&", "||", "==", "!=", "<=", ">=")
	while i < n:
		c = src[i]
		if c.isspace():
			i += 1
		elif c in "'\"":
			j = i + 1
			buf = []
			while j < n and src[j] != c:
				if src[j] == "\\":
					if j + 1 >= n:
						break
					buf.append({"n": "\n", "t": "\t"}.get(src[j + 1], src[j + 1]))
					j += 2
				else:
					buf.append(src[j])
					j += 1
			if j >= n:
				raise CelError("unterminated string at %d" % i)
			yield ("str", "".join(buf))
			i = j + 1
		elif c.isdigit():
			j = i
			while j < n and src[j].isdigit():
				j += 1
			yield ("int", int(src[i:j]))
			i = j
		elif c.isalpha() or c == "_":
			j = i
			while j < n and (src[j].isalnum() or src[j] == "_"):
				j += 1
			word = src[i:j]
			if word in ("true", "false"):
				yield ("bool", word == "true")
			elif word == "null":
				yield ("null", None)
			elif word == "in":
				yield ("op", "in")
			else:
				yield ("id", word)
			i = j
		elif src[i:i + 2] in two:
			yield ("op", src[i:i + 2])
			i += 2
		elif c in "!<>?:.,[](){}-":
			yield ("op", c)
			i += 1
		else:
			raise CelError("unexpected character %r at %d" % (c, i))
	yield ("end", None)


class _Parser:
	def __init__(self, src):
		self.t = list(_tokens(src))
		self.i = 0

	def peek(self):
		return self.t[self.i]

	def take(self, kind=None, val=None):
		tok = self.t[self.i]
		if (kind and tok[0] != kind) or (val is not None and tok[1] != val):
			raise CelError("expected %s %s, got %r" % (kind, val, tok))
		self.i += 1
		return tok

	def accept(self, val):
		if self.peek() == ("op", val):
			self.i += 1
			return True
		return False

	def parse(self):
		e = self.expr()
		self.take("end")
		return e

	def expr(self):
		c = self.or_()
		if self.accept("?"):
			a = self.or_()
			self.take("op", ":")
			return ("cond", c, a, self.expr())
		return c

	def or_(self):
		e = self.and_()
		while self.accept("||"):
			e = ("or", e, self.and_())
		return e

	def and_(self):
		e = self.rel()
		while self.accept("&&"):
			e = ("and", e, self.rel())
		return e

	def rel(self):
		e = self.unary()
		while self.peek()[0] == "op" and self.peek()[1] in ("==", "!=", "<", "<=", ">", ">=", "in"):
			op = self.take()[1]
			e = ("rel", op, e, self.unary())
		return e

	def unary(self):
		if self.accept("!"):
			return ("not", self.unary())
		if self.accept("-"):
			return ("neg", self.unary())
		return self.member()

	def args(self):
		out = []
		if not self.accept(")"):
			out.append(self.expr())
			while self.accept(","):
				out.append(self.expr())
			self.take("op", ")")
		return out

	def member(self):
		e = self.primary()
		while True:
			if self.accept("."):
				name = self.take("id")[1]
				if self.accept("("):
					e = ("method", e, name, self.args())
				else:
					e = ("select", e, name)
			elif self.accept("["):
				idx = self.expr()
				self.take("op", "]")
				e = ("index", e, idx)
			else:
				return e

	def primary(self):
		kind, val = self.take()
		if kind in ("str", "int", "bool", "null"):
			return ("lit", val)
		if kind == "id":
			if self.accept("("):
				return ("call", val, self.args())
			return ("ident", val)
		if (kind, val) == ("op", "("):
			e = self.expr()
			self.take("op", ")")
			return e
		if (kind, val) == ("op", "["):
			items = []
			if not self.accept("]"):
				items.append(self.expr())
				while self.accept(","):
					items.append(self.expr())
				self.take("op", "]")
			return ("list", items)
		if (kind, val) == ("op", "{"):
			items = []
			if not self.accept("}"):
				while True:
					k = self.expr()
					self.take("op", ":")
					items.append((k, self.expr()))
					if not self.accept(","):
						break
				self.take("op", "}")
			return ("map", items)
		raise CelError("unexpected %r" % ((kind, val),))


def parse(src):
	return _Parser(src).parse()


def _bool(v):
	if not isinstance(v, bool):
		raise CelError("no such overload: expected bool, got %r" % (v,))
	return v


def _eval(e, env):
	k = e[0]
	if k == "lit":
		return e[1]
	if k == "ident":
		if e[1] not in env:
			raise CelError("undeclared reference to '%s'" % e[1])
		return env[e[1]]
	if k == "list":
		return [_eval(x, env) for x in e[1]]
	if k == "map":
		return {_eval(a, env): _eval(b, env) for a, b in e[1]}
	if k == "select":
		obj = _eval(e[1], env)
		if not isinstance(obj, dict) or e[2] not in obj:
			raise CelError("no such key: %s" % e[2])
		return obj[e[2]]
	if k == "index":
		obj, idx = _eval(e[1], env), _eval(e[2], env)
		if isinstance(obj, dict):
			if idx not in obj:
				raise CelError("no such key: %r" % (idx,))
			return obj[idx]
		if isinstance(obj, list) and isinstance(idx, int) and not isinstance(idx, bool):
			if not 0 <= idx < len(obj):
				raise CelError("index out of range: %d" % idx)
			return obj[idx]
		raise CelError("no such overload: index")
	if k == "not":
		return not _bool(_eval(e[1], env))
	if k == "neg":
		v = _eval(e[1], env)
		if not isinstance(v, int) or isinstance(v, bool):
			raise CelError("no such overload: -")
		return -v
	if k in ("and", "or"):
		# CEL is commutative here: a decisive side wins over an error on the other side.
		short = k == "or"
		vals = []
		for side in (e[1], e[2]):
			try:
				v = _bool(_eval(side, env))
			except CelError as err:
				vals.append(err)
				continue
			if v is short:
				return short
			vals.append(v)
		for v in vals:
			if isinstance(v, CelError):
				raise v
		return not short
	if k == "cond":
		return _eval(e[2], env) if _bool(_eval(e[1], env)) else _eval(e[3], env)
	if k == "rel":
		op, a, b = e[1], _eval(e[2], env), _eval(e[3], env)
		if op == "in":
			if not isinstance(b, (dict, list)):
				raise CelError("no such overload: in")
			return a in b
		if op == "==":
			return a == b
		if op == "!=":
			return a != b
		if type(a) is not type(b) or not isinstance(a, (int, str)):
			raise CelError("no such overload: %s" % op)
		return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
	if k == "call":
		name, args = e[1], e[2]
		if name == "has":
			if len(args) != 1 or args[0][0] != "select":
				raise CelError("invalid argument to has() macro")
			obj = _eval(args[0][1], env)
			if not isinstance(obj, dict):
				raise CelError("has() on a non-object")
			return args[0][2] in obj
		if name == "size" and len(args) == 1:
			return len(_eval(args[0], env))
		raise CelError("unknown function %s" % name)
	if k == "method":
		target, name, args = e[1], e[2], e[3]
		if name == "all":
			if len(args) != 2 or args[0][0] != "ident":
				raise CelError("all() takes (var, predicate)")
			coll = _eval(target, env)
			if not isinstance(coll, (dict, list)):
				raise CelError("all() on a non-collection")
			var = args[0][1]
			err = None
			for item in list(coll):
				try:
					if not _bool(_eval(args[1], dict(env, **{var: item}))):
						return False
				except CelError as x:
					err = x
			if err:
				raise err
			return True
		obj = _eval(target, env)
		if name == "size" and not args:
			if not isinstance(obj, (dict, list, str)):
				raise CelError("no such overload: size")
			return len(obj)
		if name == "startsWith" and len(args) == 1:
			p = _eval(args[0], env)
			if not isinstance(obj, str) or not isinstance(p, str):
				raise CelError("no such overload: startsWith")
			return obj.startswith(p)
		raise CelError("unknown method %s" % name)
	raise CelError("unsupported node %s" % k)


def evaluate(src, env):
	"""Evaluate CEL source @src with variables @env (dicts/lists/str/int/bool). Raises CelError."""
	return _eval(parse(src), env)


def admit(policy_spec, request):
	"""Decide one UPDATE like a ValidatingAdmissionPolicy bound with Deny.

	@request: {"userInfo": {...}, "object": {...}, "oldObject": {...}}.
	Return (applies, allowed, messages): applies is False when a matchCondition is false.
	failurePolicy Fail: an error in a condition or validation denies.
	"""
	env = {"request": {"userInfo": request["userInfo"], "operation": "UPDATE"},
	       "object": request["object"], "oldObject": request["oldObject"]}
	fail = policy_spec.get("failurePolicy", "Fail") == "Fail"
	for mc in policy_spec.get("matchConditions", []):
		try:
			if not _bool(evaluate(mc["expression"], env)):
				return (False, True, [])
		except CelError as err:
			if fail:
				return (True, False, ["matchCondition %s: %s" % (mc["name"], err)])
			return (False, True, [])
	msgs = []
	for v in policy_spec.get("validations", []):
		try:
			ok = _bool(evaluate(v["expression"], env))
		except CelError as err:
			ok = not fail
			if not ok:
				msgs.append("error: %s" % err)
				continue
		if not ok:
			msgs.append(v.get("message", v["expression"]))
	return (True, not msgs, msgs)
