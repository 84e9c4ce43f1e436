#include "io/pickle.h"

#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "io/catalog.h"

namespace locus::io {
namespace {

constexpr int kMaxDepth = 32;
constexpr size_t kMaxStack = 1 << 20;
constexpr size_t kMaxMemo = 1 << 20;

const char* kAllowed =
    "collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter, the "
    "torch.<Type>Storage classes and TorchScript's __torch__ module classes";

bool storage_dtype(const std::string& g, ScalarType* t) {
  static const std::pair<const char*, ScalarType> table[] = {
      {"torch.FloatStorage", kFloat},   {"torch.DoubleStorage", kDouble}, {"torch.HalfStorage", kHalf},
      {"torch.BFloat16Storage", kBFloat16}, {"torch.LongStorage", kLong}, {"torch.IntStorage", kInt},
      {"torch.ByteStorage", kByte},     {"torch.BoolStorage", kBool}, {"torch.CharStorage", kChar},
      {"torch.ShortStorage", kShort}};
  for (const auto& [n, d] : table)
    if (g == n) {
      *t = d;
      return true;
    }
  return false;
}

// torch.<dtype> globals (PyTorch 2.x pickles the dtype of a tensor over an untyped storage,
// _rebuild_tensor_v3): the dtypes locus reads, and every other name torch has for one (refused
// naming the tensor).
bool torch_dtype(const std::string& g, ScalarType* t) {
  static const std::pair<const char*, ScalarType> table[] = {
      {"torch.float32", kFloat}, {"torch.float", kFloat}, {"torch.float64", kDouble},    {"torch.double", kDouble},
      {"torch.float16", kHalf},  {"torch.half", kHalf},   {"torch.bfloat16", kBFloat16}, {"torch.int64", kLong},
      {"torch.long", kLong},     {"torch.int32", kInt},   {"torch.int", kInt},           {"torch.int16", kShort},
      {"torch.short", kShort},   {"torch.int8", kChar},   {"torch.uint8", kByte},        {"torch.bool", kBool}};
  for (const auto& [n, d] : table)
    if (g == n) {
      *t = d;
      return true;
    }
  return false;
}
bool other_torch_dtype(const std::string& g) {
  static const char* names[] = {
      "complex32", "complex64", "complex128", "cfloat", "cdouble", "chalf", "uint16", "uint32", "uint64",
      "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2",
      "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16", "int1", "int2", "int3", "int4", "int5", "int6", "int7",
      "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7", "qint8", "quint8", "qint32", "quint4x2",
      "quint2x4"};
  for (const char* n : names)
    if (g == std::string("torch.") + n) return true;
  return false;
}

class Unpickler {
 public:
  Unpickler(const uint8_t* d, size_t n, const std::function<void(const std::string&)>& fail, const UnpickleOptions& o)
      : d_(d), n_(n), fail_(fail), opt_(o) {}

  PyRef run() {
    for (;;) {
      if (p_ >= n_) bad("the pickle ends without a STOP opcode (truncated).");
      const size_t at = p_;
      const uint8_t op = d_[p_++];
      switch (op) {
        case 0x80: take(1); break;                        // PROTO
        case 0x95: take(8); break;                        // FRAME (framing is advisory)
        case '.':                                         // STOP
          if (stack_.size() != 1 || !marks_.empty()) bad("STOP with " + std::to_string(stack_.size()) + " values on the stack.");
          if (opt_.consumed != nullptr) *opt_.consumed = p_;
          return stack_.back();
        case '(': if (marks_.size() >= kMaxStack) bad("too many marks."); marks_.push_back(stack_.size()); break;
        case 'N': push(make(PyValue::Kind::None)); break;
        case 0x88: case 0x89: {
          PyRef v = make(PyValue::Kind::Bool);
          v->i = op == 0x88;
          push(v);
          break;
        }
        case 'J': push_int(static_cast<int32_t>(uint32_t(le(take(4), 4)))); break;
        case 'K': push_int(le(take(1), 1)); break;
        case 'M': push_int(le(take(2), 2)); break;
        case 0x8a: {  // LONG1: little-endian two's complement of n bytes
          size_t len = le(take(1), 1);
          if (len > 8) bad("an integer of " + std::to_string(len) + " bytes does not fit in 64 bits.");
          const uint8_t* b = take(len);
          uint64_t v = le(b, len);
          if (len > 0 && len < 8 && (b[len - 1] & 0x80)) v |= ~uint64_t(0) << (8 * len);
          push_int(static_cast<int64_t>(v));
          break;
        }
        case 'G': {  // BINFLOAT, big-endian
          const uint8_t* b = take(8);
          uint64_t bits = 0;
          for (int i = 0; i < 8; ++i) bits = (bits << 8) | b[i];
          PyRef v = make(PyValue::Kind::Float);
          std::memcpy(&v->f, &bits, 8);
          push(v);
          break;
        }
        case 'X': push_str(PyValue::Kind::Str, le(take(4), 4)); break;
        case 0x8c: push_str(PyValue::Kind::Str, le(take(1), 1)); break;
        case 0x8d: push_str(PyValue::Kind::Str, le(take(8), 8)); break;
        case 'U': push_str(PyValue::Kind::Str, le(take(1), 1)); break;
        case 'T': push_str(PyValue::Kind::Str, le(take(4), 4)); break;
        case 'B': push_str(PyValue::Kind::Bytes, le(take(4), 4)); break;
        case 'C': push_str(PyValue::Kind::Bytes, le(take(1), 1)); break;
        case ')': push(make(PyValue::Kind::Tuple)); break;
        case ']': push(make(PyValue::Kind::List)); break;
        case '}': push(make(PyValue::Kind::Dict)); break;
        case 0x85: case 0x86: case 0x87: push(tuple_of(pop_n(op - 0x84))); break;
        case 't': push(tuple_of(pop_mark())); break;
        case 'l': {
          PyRef v = make(PyValue::Kind::List);
          for (auto& x : pop_mark()) add(v, x);
          push(v);
          break;
        }
        case 'd': {
          PyRef v = make(PyValue::Kind::Dict);
          auto xs = pop_mark();
          if (xs.size() % 2) bad("DICT with an odd number of items.");
          for (auto& x : xs) add(v, x);
          push(v);
          break;
        }
        case 'a': {
          PyRef x = pop();
          add(top(PyValue::Kind::List, "APPEND"), x);
          break;
        }
        case 'e': {
          auto xs = pop_mark();
          PyRef l = top(PyValue::Kind::List, "APPENDS");
          for (auto& x : xs) add(l, x);
          break;
        }
        case 's': {
          PyRef v = pop(), k = pop();
          PyRef dct = top(PyValue::Kind::Dict, "SETITEM");
          add(dct, k);
          add(dct, v);
          break;
        }
        case 'u': {
          auto xs = pop_mark();
          if (xs.size() % 2) bad("SETITEMS with an odd number of items.");
          PyRef dct = top(PyValue::Kind::Dict, "SETITEMS");
          for (auto& x : xs) add(dct, x);
          break;
        }
        case 'q': memo_put(le(take(1), 1)); break;
        case 'r': memo_put(le(take(4), 4)); break;
        case 0x94: memo_put(memo_.size()); break;
        case 'h': memo_get(le(take(1), 1)); break;
        case 'j': memo_get(le(take(4), 4)); break;
        case '0': pop(); break;
        case '1': pop_mark(); break;
        case '2': push(peek()); break;
        case 'c': {
          std::string module = line(), name = line();
          push(global(module + "." + name));
          break;
        }
        case 0x93: {
          PyRef name = pop(), module = pop();
          if (name->kind != PyValue::Kind::Str || module->kind != PyValue::Kind::Str) bad("STACK_GLOBAL needs two strings.");
          push(global(module->s + "." + name->s));
          break;
        }
        case 'Q': push(persistent(pop())); break;
        case 'R': {
          PyRef args = pop(), fn = pop();
          push(reduce(fn, args));
          break;
        }
        case 0x81: {  // NEWOBJ: only a TorchScript module class, with no arguments
          PyRef args = pop(), cls = pop();
          if (cls->kind != PyValue::Kind::Global || !torchscript_class(cls->s))
            bad("NEWOBJ may only make a TorchScript module object (a __torch__ class).");
          if (args->kind != PyValue::Kind::Tuple || !args->items.empty())
            bad("the TorchScript object '" + cls->s.substr(0, 200) + "' is made with arguments; only attribute dicts are read.");
          PyRef obj = make(PyValue::Kind::Object);
          obj->s = cls->s;
          push(obj);
          break;
        }
        case 'b': {  // BUILD: a TorchScript object's attributes, or an OrderedDict's (dropped)
          PyRef state = pop();
          PyRef obj = peek();
          if (obj->kind == PyValue::Kind::Object) {
            if (state->kind != PyValue::Kind::Dict)
              bad("the TorchScript object '" + obj->s.substr(0, 200) + "' is rebuilt from a state that is not an attribute dict "
                  "(a custom __setstate__), which locus does not read.");
            if (obj->i != 0) bad("BUILD is applied twice to one object.");
            obj->i = 1;  // built
            for (const PyRef& x : state->items) add(obj, x);  // the dict's entries become the object's
            state->frozen = true;
            break;
          }
          if (obj->kind != PyValue::Kind::Dict || (state->kind != PyValue::Kind::Dict && state->kind != PyValue::Kind::None))
            bad("BUILD is only allowed to set an OrderedDict's or a TorchScript module's attributes.");
          break;
        }
        default: {
          char buf[96];
          std::snprintf(buf, sizeof buf, "opcode 0x%02x%s%c%s at byte %zu", op, op >= 0x20 && op < 0x7f ? " ('" : "",
                        op >= 0x20 && op < 0x7f ? char(op) : ' ', op >= 0x20 && op < 0x7f ? "')" : "", at);
          bad(std::string("the pickle uses ") + buf + ", which a tensor state dict never needs; it is rejected (locus never runs pickled code).");
        }
      }
    }
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    fail_(std::string(opt_.name) + ": " + what);
    throw 0;  // fail_ always throws
  }
  const uint8_t* take(size_t k) {
    if (k > n_ - p_) bad("the pickle is truncated (an opcode needs " + std::to_string(k) + " more bytes).");
    const uint8_t* b = d_ + p_;
    p_ += k;
    return b;
  }
  static uint64_t le(const uint8_t* b, size_t k) {
    uint64_t v = 0;
    for (size_t i = k; i-- > 0;) v = (v << 8) | b[i];
    return v;
  }
  std::string line() {
    const void* nl = std::memchr(d_ + p_, '\n', n_ - p_);
    if (nl == nullptr) bad("GLOBAL without a newline (truncated).");
    size_t len = static_cast<const uint8_t*>(nl) - (d_ + p_);
    std::string s(reinterpret_cast<const char*>(d_ + p_), len);
    p_ += len + 1;
    return s;
  }
  PyRef make(PyValue::Kind k) {
    auto v = std::make_shared<PyValue>();
    v->kind = k;
    return v;
  }
  void push(PyRef v) {
    if (stack_.size() >= kMaxStack) bad("the stack grows past " + std::to_string(kMaxStack) + " values.");
    stack_.push_back(std::move(v));
  }
  void push_int(int64_t x) {
    PyRef v = make(PyValue::Kind::Int);
    v->i = x;
    push(v);
  }
  void push_str(PyValue::Kind k, uint64_t len) {
    const uint8_t* b = take(len);
    PyRef v = make(k);
    v->s.assign(reinterpret_cast<const char*>(b), len);
    push(v);
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  PyRef pop() {
    if (stack_.size() <= floor()) bad("an opcode pops from an empty stack.");
    PyRef v = std::move(stack_.back());
    stack_.pop_back();
    return v;
  }
  PyRef peek() {
    if (stack_.size() <= floor()) bad("an opcode reads an empty stack.");
    return stack_.back();
  }
  std::vector<PyRef> pop_n(size_t k) {
    if (stack_.size() < floor() + k) bad("an opcode pops from an empty stack.");
    std::vector<PyRef> xs(stack_.end() - static_cast<std::ptrdiff_t>(k), stack_.end());
    stack_.resize(stack_.size() - k);
    return xs;
  }
  std::vector<PyRef> pop_mark() {
    if (marks_.empty()) bad("an opcode needs a MARK and there is none.");
    size_t m = marks_.back();
    marks_.pop_back();
    std::vector<PyRef> xs(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return xs;
  }
  PyRef top(PyValue::Kind k, const char* op) {
    PyRef v = peek();
    if (v->kind != k) bad(std::string(op) + " applied to a value of the wrong type.");
    return v;
  }
  // Adds x to container c; c must not be inside anything yet (no cycles, no shared mutation).
  void add(const PyRef& c, const PyRef& x) {
    if (c->frozen || c == x) bad("a container is modified after it was used (cyclic or shared structure).");
    x->frozen = true;
    c->depth = std::max(c->depth, x->depth + 1);
    if (c->depth > kMaxDepth) bad("values nest deeper than " + std::to_string(kMaxDepth) + " levels.");
    c->items.push_back(x);
  }
  PyRef tuple_of(const std::vector<PyRef>& xs) {
    PyRef t = make(PyValue::Kind::Tuple);
    for (const auto& x : xs) add(t, x);
    return t;
  }
  void memo_put(uint64_t k) {
    if (memo_.size() >= kMaxMemo && !memo_.count(k)) bad("the memo grows past " + std::to_string(kMaxMemo) + " entries.");
    memo_[k] = peek();
  }
  void memo_get(uint64_t k) {
    auto it = memo_.find(k);
    if (it == memo_.end()) bad("memo entry " + std::to_string(k) + " is read before it is written.");
    push(it->second);
  }
  // A class of TorchScript's compilation unit: "__torch__.Module", "__torch__.___torch_mangle_3.Module",
  // "__torch__.torch.nn.modules.linear.Linear" (names only: nothing of it is run or looked up).
  static bool torchscript_class(const std::string& g) { return g.rfind("__torch__.", 0) == 0 && g.size() > 10; }
  PyRef global(const std::string& g) {
    ScalarType t;
    if (g != "collections.OrderedDict" && g != "torch._utils._rebuild_tensor_v2" &&
        g != "torch._utils._rebuild_parameter" && g != "torch._utils._rebuild_tensor" &&
        g != "torch._utils._rebuild_tensor_v3" && g != "torch.storage.UntypedStorage" && !torch_dtype(g, &t) &&
        !other_torch_dtype(g) && !storage_dtype(g, &t) && !refused_dtype("pytorch", g) && !torchscript_class(g))
      bad("global '" + g.substr(0, 200) + "' is forbidden: a tensor checkpoint may only refer to " + kAllowed + ".");
    PyRef v = make(PyValue::Kind::Global);
    v->s = g;
    return v;
  }
  bool is_int(const PyRef& v) { return v->kind == PyValue::Kind::Int || v->kind == PyValue::Kind::Bool; }
  std::vector<int64_t> ints(const PyRef& v, const char* what) {
    if (v->kind != PyValue::Kind::Tuple && v->kind != PyValue::Kind::List) bad(std::string(what) + " is not a tuple of integers.");
    std::vector<int64_t> out;
    for (const auto& x : v->items) {
      if (!is_int(x)) bad(std::string(what) + " is not a tuple of integers.");
      out.push_back(x->i);
    }
    return out;
  }
  // ('storage', torch.<T>Storage, key, location, numel), legacy: and view_metadata
  PyRef persistent(const PyRef& pid) {
    const auto& it = pid->items;
    const size_t arity = opt_.legacy ? 6 : 5;
    if (pid->kind != PyValue::Kind::Tuple || it.size() != arity || it[0]->kind != PyValue::Kind::Str ||
        it[0]->s != "storage" || it[1]->kind != PyValue::Kind::Global || it[2]->kind != PyValue::Kind::Str ||
        it[3]->kind != PyValue::Kind::Str || !is_int(it[4]))
      bad(opt_.legacy
              ? "a persistent id is not ('storage', <storage type>, key, location, numel, view_metadata) (a whole "
                "nn.Module pickled by torch.save is not read: save its state_dict())."
              : "a persistent id is not ('storage', <storage type>, key, location, numel).");
    PyRef s = make(PyValue::Kind::Storage);
    if (it[1]->s == "torch.storage.UntypedStorage") {  // bytes, typed by the tensor (_rebuild_tensor_v3)
      s->dtype = kByte;
      s->untyped = true;
    } else if (refused_dtype("pytorch", it[1]->s) && !storage_dtype(it[1]->s, &s->dtype)) {
      s->refused = it[1]->s;  // refused by name once the tensor using it is known
      s->dtype = kByte;
    } else if (!storage_dtype(it[1]->s, &s->dtype)) {
      bad("'" + it[1]->s + "' is not a storage type.");
    }
    s->s = it[2]->s;
    s->location = it[3]->s;
    s->i = it[4]->i;
    if (s->i < 0) bad("storage '" + s->s.substr(0, 100) + "' has a negative size.");
    if (opt_.legacy && it[5]->kind != PyValue::Kind::None) {  // (view key, offset, size)
      const auto& v = it[5]->items;
      if (it[5]->kind != PyValue::Kind::Tuple || v.size() != 3 || v[0]->kind != PyValue::Kind::Str || !is_int(v[1]) ||
          !is_int(v[2]))
        bad("storage '" + s->s.substr(0, 100) + "' has a view_metadata that is not (view key, offset, size).");
      s->has_view = true;
      s->view_key = v[0]->s;
      s->view_offset = v[1]->i;
      s->view_size = v[2]->i;
    }
    return s;
  }
  PyRef reduce(const PyRef& fn, const PyRef& args) {
    if (fn->kind != PyValue::Kind::Global) bad("REDUCE calls something that is not an allowed global.");
    if (args->kind != PyValue::Kind::Tuple) bad("REDUCE arguments are not a tuple.");
    const auto& a = args->items;
    if (fn->s == "collections.OrderedDict") {
      if (!a.empty()) bad("OrderedDict is only rebuilt empty (then filled with SETITEMS).");
      return make(PyValue::Kind::Dict);
    }
    if (fn->s == "torch._utils._rebuild_tensor_v2" || fn->s == "torch._utils._rebuild_tensor") {
      // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata]); v1: the first four
      const bool v1 = fn->s == "torch._utils._rebuild_tensor";
      if ((v1 ? a.size() != 4 : a.size() < 6 || a.size() > 7) || a[0]->kind != PyValue::Kind::Storage || !is_int(a[1]))
        bad(v1 ? "_rebuild_tensor needs (storage, offset, size, stride)."
               : "_rebuild_tensor_v2 needs (storage, offset, size, stride, requires_grad, hooks).");
      if (!v1 && (a[5]->kind != PyValue::Kind::Dict || !a[5]->items.empty()))
        bad("a tensor with backward hooks cannot be loaded.");
      PyRef t = make(PyValue::Kind::Tensor);
      t->i = a[1]->i;
      t->sizes = ints(a[2], "a tensor's size");
      t->strides = ints(a[3], "a tensor's stride");
      t->dtype = a[0]->dtype;
      t->refused = a[0]->refused;
      t->items.push_back(a[0]);
      return t;
    }
    if (fn->s == "torch._utils._rebuild_tensor_v3") {
      // (untyped storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype[, metadata]):
      // what PyTorch 2.x writes for a dtype that has no typed storage class (uint16, float8, ...)
      if (a.size() < 7 || a.size() > 8 || a[0]->kind != PyValue::Kind::Storage || !a[0]->untyped || !is_int(a[1]) ||
          a[6]->kind != PyValue::Kind::Global)
        bad("_rebuild_tensor_v3 needs (untyped storage, offset, size, stride, requires_grad, hooks, dtype).");
      if (a[5]->kind != PyValue::Kind::Dict || !a[5]->items.empty())
        bad("a tensor with backward hooks cannot be loaded.");
      PyRef t = make(PyValue::Kind::Tensor);
      t->i = a[1]->i;
      t->sizes = ints(a[2], "a tensor's size");
      t->strides = ints(a[3], "a tensor's stride");
      ScalarType dt;
      if (torch_dtype(a[6]->s, &dt)) {  // a dtype locus reads: the storage's bytes as elements of it
        const int64_t es = static_cast<int64_t>(element_size(dt));
        if (a[0]->i % es != 0)
          bad("storage '" + a[0]->s.substr(0, 100) + "' has " + std::to_string(a[0]->i) +
              " bytes, not a whole number of " + a[6]->s + " elements.");
        PyRef typed = std::make_shared<PyValue>(*a[0]);
        typed->items.clear();
        typed->dtype = dt;
        typed->i = a[0]->i / es;
        t->dtype = dt;
        t->items.push_back(typed);
      } else {
        t->refused = a[6]->s;  // refused naming the tensor
        t->dtype = kByte;
        t->items.push_back(a[0]);
      }
      return t;
    }
    if (fn->s == "torch._utils._rebuild_parameter") {
      if (a.size() != 3 || a[0]->kind != PyValue::Kind::Tensor) bad("_rebuild_parameter needs (tensor, requires_grad, hooks).");
      return a[0];
    }
    bad("'" + fn->s + "' cannot be called.");
  }

  const uint8_t* d_;
  size_t n_, p_ = 0;
  const std::function<void(const std::string&)>& fail_;
  const UnpickleOptions& opt_;
  std::vector<PyRef> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PyRef> memo_;
};

}  // namespace

PyRef unpickle(const uint8_t* data, size_t size, const std::function<void(const std::string&)>& fail,
               const UnpickleOptions& options) {
  return Unpickler(data, size, fail, options).run();
}

const char* storage_class(ScalarType t) {
  static const char* names[] = {"torch.FloatStorage", "torch.DoubleStorage", "torch.HalfStorage", "torch.BFloat16Storage",
                                "torch.LongStorage",  "torch.IntStorage",    "torch.ByteStorage", "torch.BoolStorage",
                                "torch.CharStorage",  "torch.ShortStorage"};
  for (const char* n : names) {  // the reader's table decides which of them locus has
    ScalarType u;
    if (storage_dtype(n, &u) && u == t) return n;
  }
  return nullptr;
}

namespace {

// Protocol-2 opcodes, each as torch's weights_only unpickler (1.13) reads it.
struct PickleOut {
  std::string b;
  void op(char c) { b += c; }
  void u32(uint64_t v) {
    for (int i = 0; i < 4; ++i) b += static_cast<char>((v >> (8 * i)) & 0xff);
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      op('K');
      b += static_cast<char>(v);
    } else if (v >= 0 && v < 65536) {
      op('M');
      b += static_cast<char>(v & 0xff);
      b += static_cast<char>(v >> 8);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      u32(static_cast<uint32_t>(static_cast<int32_t>(v)));
    } else {  // LONG1: the shortest little-endian two's complement
      std::string bytes;
      uint64_t u = static_cast<uint64_t>(v);
      for (int i = 0; i < 8; ++i) bytes += static_cast<char>((u >> (8 * i)) & 0xff);
      while (bytes.size() > 1) {
        const char last = bytes.back(), prev = bytes[bytes.size() - 2];
        if ((last == 0 && !(prev & 0x80)) || (last == char(0xff) && (prev & 0x80))) bytes.pop_back();
        else break;
      }
      op(char(0x8a));
      b += static_cast<char>(bytes.size());
      b += bytes;
    }
  }
  void str(const std::string& s) {
    op('X');
    u32(s.size());
    b += s;
  }
  void global(const std::string& module, const std::string& name) { b += "c" + module + "\n" + name + "\n"; }
  void tuple(const std::vector<int64_t>& xs) {
    if (xs.empty()) return op(')');
    if (xs.size() > 3) op('(');
    for (int64_t x : xs) integer(x);
    if (xs.size() <= 3) op(static_cast<char>(0x84 + xs.size()));
    else op('t');
  }
  void ordered_dict() {
    global("collections", "OrderedDict");
    op(')');
    op('R');
  }
};

}  // namespace

std::string pickle_state_dict(const std::vector<PickleTensor>& tensors, const std::vector<PickleStorage>& storages,
                              const std::vector<std::pair<std::string, std::string>>& strings) {
  PickleOut p;
  p.b = "\x80\x02";
  p.ordered_dict();
  p.op('(');
  for (const PickleTensor& t : tensors) {
    const PickleStorage& s = storages.at(t.storage);
    const std::string cls = storage_class(s.dtype);
    p.str(t.name);
    p.global("torch._utils", "_rebuild_tensor_v2");
    p.op('(');
    p.op('(');  // the persistent id
    p.str("storage");
    p.global("torch", cls.substr(6));
    p.str(std::to_string(t.storage));
    p.str(s.location);
    p.integer(static_cast<int64_t>(s.numel));
    p.op('t');
    p.op('Q');
    p.integer(t.offset);
    p.tuple(t.sizes);
    p.tuple(t.strides);
    p.op(static_cast<char>(0x89));  // requires_grad=False
    p.ordered_dict();               // no backward hooks
    p.op('t');
    p.op('R');
  }
  for (const auto& [k, v] : strings) {
    p.str(k);
    p.str(v);
  }
  p.op('u');
  p.op('.');
  return p.b;
}

}  // namespace locus::io
