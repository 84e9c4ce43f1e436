#pragma once
// OrderedDict: insertion-ordered map with key lookup, as libtorch's torch::OrderedDict
// (named_parameters(), named_children(), ...). Items expose key() and value().
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "locus/error.h"

namespace locus {

template <typename Key, typename Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    Value& operator*() { return value(); }
    const Value& operator*() const { return value(); }
    Value* operator->() { return &value(); }
    const Value* operator->() const { return &value(); }
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}

  /// Inserts a new key; throws if it is already present.
  Value& insert(Key key, Value value) {
    if (index_.count(key))
      throw Error(key_description_ + " '" + key_string(key) + "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  /// Inserts or replaces.
  Value& insert_or_assign(Key key, Value value) {
    if (Value* v = find(key)) return *v = std::move(value);
    return insert(std::move(key), std::move(value));
  }
  void update(const OrderedDict& other) {
    for (const Item& i : other) insert_or_assign(i.key(), i.value());
  }

  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const noexcept { return index_.count(key) > 0; }
  Value& operator[](const Key& key) {
    if (Value* v = find(key)) return *v;
    throw Error(key_description_ + " '" + key_string(key) + "' is not defined");
  }
  const Value& operator[](const Key& key) const {
    if (const Value* v = find(key)) return *v;
    throw Error(key_description_ + " '" + key_string(key) + "' is not defined");
  }
  Item& operator[](size_t index) { return items_.at(index); }
  const Item& operator[](size_t index) const { return items_.at(index); }

  void erase(const Key& key) {
    auto it = index_.find(key);
    if (it == index_.end()) throw Error(key_description_ + " '" + key_string(key) + "' is not defined");
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(it->second));
    index_.clear();
    for (size_t i = 0; i < items_.size(); ++i) index_.emplace(items_[i].key(), i);
  }
  void clear() {
    index_.clear();
    items_.clear();
  }

  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }
  Item& front() { return items_.at(0); }
  Item& back() { return items_.at(items_.size() - 1); }
  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  const std::vector<Item>& items() const noexcept { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> k;
    for (const Item& i : items_) k.push_back(i.key());
    return k;
  }
  std::vector<Value> values() const {
    std::vector<Value> v;
    for (const Item& i : items_) v.push_back(i.value());
    return v;
  }
  const std::string& key_description() const noexcept { return key_description_; }

 private:
  static std::string key_string(const Key& k) {
    if constexpr (std::is_convertible_v<Key, std::string>) return k;
    else return std::to_string(k);
  }
  std::unordered_map<Key, size_t> index_;
  std::vector<Item> items_;
  std::string key_description_;
};

}  // namespace locus
