// Seating: ▲ and ▼ move a player in place (without the script each is a round trip).

export function setupSeats(list) {
  list.addEventListener("click", (event) => {
    const button = event.target.closest("button[name=move]");
    if (!button) return;
    event.preventDefault();
    const seat = button.closest("li");
    const up = button.value.indexOf("up:") === 0;
    const other = up ? seat.previousElementSibling : seat.nextElementSibling;
    if (!other) return;
    list.insertBefore(up ? seat : other, up ? other : seat);
    const seats = list.querySelectorAll("li");
    seats.forEach((li, index) => {
      const moveUp = li.querySelector("button[value^='up:']"), moveDown = li.querySelector("button[value^='down:']");
      moveUp.value = "up:" + index;
      moveDown.value = "down:" + index;
      moveUp.disabled = index === 0;
      moveDown.disabled = index === seats.length - 1;
    });
    (button.disabled ? seat.querySelector("button:not(:disabled)") : button).focus();
  });
}
